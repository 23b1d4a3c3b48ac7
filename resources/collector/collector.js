// Veetbot in-page observation collector (docs/observation-collector.md).
//
// Installed by the WebEngine provider as a QWebEngineScript in private world 73 at
// DocumentCreation, main frame only: it runs before page scripts, the page cannot reach or
// patch anything defined here, and its state lives until the document is replaced.
//
// It returns bounded, typed facts about the page: the title, readable text with coverage, and
// up to 256 visible interactive controls (role, name, state). It never returns HTML, input
// values, editable content, hidden text, attribute text as prose, or anything from frames or
// closed shadow roots. Every entry point returns a JSON string and never throws; a failure is
// the fixed string FAILED, which carries no page text.
(function () {
  'use strict';
  if (globalThis.__veetbot !== undefined) return;

  // References taken once, at install time, from this world's own globals.
  const win = globalThis;
  const doc = win.document;
  const getStyle = win.getComputedStyle.bind(win);
  const perf = win.performance;
  const now = perf.now.bind(perf);
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const MapCtor = Map;
  const SetCtor = Set;
  const WeakSetCtor = WeakSet;

  const FAILED = '{"ok":false,"error":"collector_failed"}';
  // A continuation whose anchor or window no longer belongs to this document's committed
  // capture. Decided before anything is captured: no state changes.
  const PAGE_CHANGED = '{"ok":false,"error":"page_changed"}';
  const NOT_FOUND = '{"ok":false}';
  const OK = '{"ok":true}';

  // Bounds (core/domain/observation/BrowserObservation.h).
  const MAX_TEXT_NODES = 8192;
  const MAX_TEXT_UNITS = 262144;
  const MAX_TEXT_BYTES = 256 * 1024;
  const MAX_OMITTED_BYTES = MAX_TEXT_UNITS * 3;
  const MAX_CANDIDATES = 4096; // visibility-checked per window; one more is a lookahead
  const MAX_POSITIONS = 65536; // candidate positions 0..65535; the walk never goes beyond
  const MAX_ELEMENTS = 256;
  const MAX_ACQUIRE_VISITS = 262144; // element visits of the candidate walk
  const MAX_CONTENTS_VISITS = 256; // child visits of one display:contents visibility check
  const MAX_STYLE_CHAIN = 64; // box-less display:contents ancestors crossed by styleIsStored
  const MAX_NAME_UNITS = 1024;
  const MAX_TITLE_UNITS = 1024;
  const MAX_ROLE_UNITS = 64;
  const MAX_REF_UNITS = 128;
  const MAX_CAPTURE_ID_UNITS = 128;
  const NAME_LIMITS = { maxNodes: 256, maxUnits: 4096, maxBytes: 16384 };
  const MAX_LABELLEDBY_IDS = 16;
  const MAX_LABELS = 8;
  const MAX_ARIA_DISABLED_ANCESTORS = 32;
  const MAX_PENDING_CAPTURES = 8;
  const MAX_RESOURCE_NAMES = 4096;
  const MAX_RESOURCE_COUNT = 65535;
  const MAX_URL_UNITS = 8192;
  const MAX_PROBE_URLS = 1024;
  const MAX_STYLE_KEY_SHEETS = 256; // style sheets compared by a continuation's reuse check

  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';

  // Candidate selector: native controls and elements whose role, editability or tab stop
  // makes them interactive.
  const INTERACTIVE_ROLES = [
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton',
    'treeitem',
  ];
  const CANDIDATE_SELECTOR = [
    'a[href]', 'button', 'input:not([type="hidden" i])', 'select', 'textarea', 'summary',
    '[contenteditable=""]', '[contenteditable="true" i]', '[contenteditable="plaintext-only" i]',
    '[tabindex]:not([tabindex^="-"])',
  ].concat(INTERACTIVE_ROLES.map((r) => '[role~="' + r + '" i]')).join(',');

  // Non-abstract WAI-ARIA 1.2 roles.
  const VALID_ROLES = new SetCtor([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button',
    'caption', 'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary',
    'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document', 'emphasis',
    'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img',
    'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'marquee', 'math',
    'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'navigation',
    'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio',
    'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox',
    'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript',
    'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer',
    'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
  ]);
  // Custom editors: their content is user input and never read.
  const EDITABLE_ROLES = new SetCtor(['textbox', 'searchbox', 'combobox', 'spinbutton']);
  // Roles whose name may come from their own rendered content (accname "name from content",
  // plus generic/listitem for clickable containers).
  const NAME_FROM_CONTENT_ROLES = new SetCtor([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch',
    'tab', 'tooltip', 'treeitem', 'generic', 'listitem',
  ]);
  const CHECKED_ROLES = new SetCtor(['checkbox', 'radio', 'switch', 'menuitemcheckbox',
                                     'menuitemradio']);
  const MIXED_ROLES = new SetCtor(['checkbox', 'menuitemcheckbox']);
  const SELECTED_ROLES = new SetCtor(['option', 'tab', 'treeitem', 'gridcell']);

  // HTML elements whose subtree never supplies readable text or name text.
  const EXCLUDED_TAGS = new SetCtor([
    'script', 'style', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'object',
    'embed', 'applet', 'portal', 'fencedframe', 'canvas', 'video', 'audio', 'input',
    'textarea', 'select', 'option', 'optgroup', 'datalist', 'head', 'title', 'meta', 'link',
    'base', 'param', 'source', 'track', 'area', 'map', 'noembed', 'noframes', 'img',
  ]);
  // Display values that do not start a line (everything else except table-cell does).
  const INLINE_DISPLAYS = new SetCtor([
    'inline', 'inline-block', 'inline-flex', 'inline-grid', 'inline-table', 'contents',
    'ruby', 'ruby-base', 'ruby-text', 'ruby-base-container', 'ruby-text-container',
    '-webkit-inline-box',
  ]);
  const PRE_WHITE_SPACE = new SetCtor(['pre', 'pre-wrap', 'pre-line', 'break-spaces']);

  const IMPLICIT_ROLE_BY_TAG = new MapCtor([
    ['article', 'article'], ['aside', 'complementary'], ['blockquote', 'blockquote'],
    ['button', 'button'], ['dd', 'definition'], ['details', 'group'], ['dialog', 'dialog'],
    ['dt', 'term'], ['fieldset', 'group'], ['figure', 'figure'], ['form', 'form'],
    ['h1', 'heading'], ['h2', 'heading'], ['h3', 'heading'], ['h4', 'heading'],
    ['h5', 'heading'], ['h6', 'heading'], ['hr', 'separator'], ['li', 'listitem'],
    ['main', 'main'], ['menu', 'list'], ['meter', 'meter'], ['nav', 'navigation'],
    ['ol', 'list'], ['optgroup', 'group'], ['option', 'option'], ['output', 'status'],
    ['p', 'paragraph'], ['progress', 'progressbar'], ['summary', 'button'],
    ['table', 'table'], ['tbody', 'rowgroup'], ['td', 'cell'], ['textarea', 'textbox'],
    ['tfoot', 'rowgroup'], ['th', 'columnheader'], ['thead', 'rowgroup'], ['tr', 'row'],
    ['ul', 'list'],
  ]);
  const INPUT_ROLE_BY_TYPE = new MapCtor([
    ['button', 'button'], ['checkbox', 'checkbox'], ['file', 'button'], ['image', 'button'],
    ['number', 'spinbutton'], ['radio', 'radio'], ['range', 'slider'], ['reset', 'button'],
    ['submit', 'button'],
  ]);

  // ---------------------------------------------------------------- string helpers

  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  function wellFormed(s) {
    return s.replace(LONE_SURROGATE, '\uFFFD');
  }

  // At most maxUnits UTF-16 units, never ending inside a surrogate pair.
  function cutUnits(s, maxUnits) {
    if (s.length <= maxUnits) return s;
    let end = maxUnits;
    const last = s.charCodeAt(end - 1);
    if (last >= 0xD800 && last <= 0xDBFF) end -= 1;
    return s.slice(0, end);
  }

  // s is well formed: every surrogate is part of a pair.
  function utf8Length(s) {
    let bytes = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xD800 && c <= 0xDBFF) { bytes += 4; i++; }
      else bytes += 3;
    }
    return bytes;
  }

  // Number of leading UTF-16 units of s whose UTF-8 form fits in maxBytes, never splitting a
  // code point.
  function utf8PrefixUnits(s, maxBytes) {
    let bytes = 0;
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      let width = 3;
      let units = 1;
      if (c < 0x80) width = 1;
      else if (c < 0x800) width = 2;
      else if (c >= 0xD800 && c <= 0xDBFF) { width = 4; units = 2; }
      if (bytes + width > maxBytes) break;
      bytes += width;
      i += units;
    }
    return i;
  }

  // Characters that take no room on screen (the soft hyphen, zero-width spaces and joiners,
  // word joiners, invisible operators, the byte-order mark): removed before white space is
  // collapsed, so "Pu\uFEFFblish" reads "Publish" as it is displayed, not "Pu blish". Bidi
  // controls stay: the classifier applies them.
  const INVISIBLE_FORMAT = /[\u00AD\u180E\u200B-\u200D\u2060-\u2064\uFEFF]/g;
  function displayed(s) {
    return s.replace(INVISIBLE_FORMAT, '');
  }
  // Names and the title: invisible format characters removed, all whitespace runs become one
  // space, trimmed, well formed, cut.
  function collapseLine(s, maxUnits) {
    return cutUnits(wellFormed(displayed(s).replace(/\s+/g, ' ').trim()), maxUnits);
  }

  // Attribute value compared ASCII case-insensitively; long values never match.
  function attrIs(el, name, expected) {
    const v = el.getAttribute(name);
    return v !== null && v.length <= 32 && v.trim().toLowerCase() === expected;
  }

  // A short attribute used as a name source, collapsed and cut.
  function attrText(el, name) {
    const v = el.getAttribute(name);
    if (v === null) return '';
    return collapseLine(cutUnits(v, MAX_NAME_UNITS * 4), MAX_NAME_UNITS);
  }

  function isHtml(el, localName) {
    return el.localName === localName && el.namespaceURI === HTML_NS;
  }

  // First valid explicit role token, lower case, or ''.
  function explicitRole(el) {
    const attr = el.getAttribute('role');
    if (attr === null) return '';
    const tokens = cutUnits(attr, 256).toLowerCase().split(/[ \t\n\f\r]+/);
    for (let i = 0; i < tokens.length; i++) {
      if (VALID_ROLES.has(tokens[i])) return tokens[i];
    }
    return '';
  }

  // ---------------------------------------------------------------- text output

  const SEP_NONE = 0;
  const SEP_SPACE = 1;
  const SEP_TAB = 2;
  const SEP_LINE = 3;
  const TAIL_START = 0;
  const TAIL_TEXT = 1;
  const TAIL_LINE = 2;

  // Accumulates normalized text under a UTF-8 byte bound. Separators are pending until text
  // follows, so nothing leads or trails and adjacent inline text gets no invented space.
  // In name mode every separator is one space.
  function TextSink(maxBytes, nameMode) {
    this.parts = [];
    this.bytes = 0;
    this.maxBytes = maxBytes;
    this.omitted = 0;
    this.full = false;
    this.pending = SEP_NONE;
    this.tail = TAIL_START;
    this.lineRun = 0;
    this.nameMode = nameMode;
  }
  TextSink.prototype.separate = function (kind) {
    if (this.nameMode && kind !== SEP_NONE) kind = SEP_SPACE;
    if (kind > this.pending) this.pending = kind;
  };
  // <br> and preserved newlines: a forced line break; at most one empty line in a row.
  TextSink.prototype.lineBreak = function () {
    if (this.nameMode) { this.separate(SEP_SPACE); return; }
    if (this.tail === TAIL_START || this.lineRun >= 2) return;
    this.pending = SEP_NONE;
    this.put('\n');
    this.tail = TAIL_LINE;
    this.lineRun += 1;
  };
  // s: non-empty, without leading or trailing collapsible whitespace.
  TextSink.prototype.text = function (s) {
    if (this.tail !== TAIL_START && this.pending !== SEP_NONE) {
      let sep = '';
      if (this.pending === SEP_LINE) sep = this.tail === TAIL_LINE ? '' : '\n';
      else if (this.tail === TAIL_TEXT) sep = this.pending === SEP_TAB ? '\t' : ' ';
      if (sep) this.put(sep);
    }
    this.pending = SEP_NONE;
    this.put(s);
    this.tail = TAIL_TEXT;
    this.lineRun = 0;
  };
  // Collapses CSS whitespace in s and adds it.
  TextSink.prototype.collapsed = function (s) {
    const c = displayed(s).replace(/[ \t\n\r\f]+/g, ' ');
    let start = 0;
    let end = c.length;
    if (end === 0) return;
    if (c.charCodeAt(0) === 32) { this.separate(SEP_SPACE); start = 1; }
    const trailing = end > start && c.charCodeAt(end - 1) === 32;
    if (trailing) end -= 1;
    if (end > start) this.text(start === 0 && end === c.length ? c : c.slice(start, end));
    if (trailing) this.separate(SEP_SPACE);
  };
  TextSink.prototype.put = function (s) {
    const b = utf8Length(s);
    if (this.full) { this.omitted += b; return; }
    if (this.bytes + b <= this.maxBytes) {
      this.parts.push(s);
      this.bytes += b;
      return;
    }
    const prefix = s.slice(0, utf8PrefixUnits(s, this.maxBytes - this.bytes));
    const pb = utf8Length(prefix);
    if (prefix) this.parts.push(prefix);
    this.bytes += pb;
    this.omitted += b - pb;
    this.full = true;
  };
  TextSink.prototype.result = function () {
    return this.parts.join('');
  };

  // ---------------------------------------------------------------- element classification

  const KIND_BLOCK = 0; // ordinary element: walk its children
  const KIND_BR = 1;
  const KIND_LABEL = 2; // name mode: an image's alt or a descendant's aria-label stands in

  // Decides how an element contributes to text. null: its whole subtree contributes nothing
  // (excluded tag, hidden, ARIA-hidden, inert, editable, clipped to nothing). Reads one
  // computed style.
  function classify(el, nameMode, skipEl) {
    if (el === skipEl) return null;
    if (el.hasAttribute('hidden') || el.hasAttribute('inert') || attrIs(el, 'aria-hidden', 'true'))
      return null;
    const ns = el.namespaceURI;
    const tag = el.localName;
    let labelText = null;
    if (ns === HTML_NS) {
      if (EXCLUDED_TAGS.has(tag)) {
        if (!(nameMode && tag === 'img')) return null;
        labelText = attrText(el, 'alt');
      }
    } else if (ns !== MATHML_NS) {
      // SVG and unknown vocabularies: no prose. In a name, an SVG's aria-label stands in.
      if (!nameMode || ns !== SVG_NS) return null;
      labelText = '';
    }
    if (EDITABLE_ROLES.has(explicitRole(el))) return null;
    if (el.isContentEditable === true) return null;
    const style = getStyle(el);
    const display = style.display;
    if (display === 'none') return null;
    // A box that clips its overflow and has no area shows nothing (collapsed panels). The
    // root and body are exempt: their overflow usually applies to the viewport.
    if ((style.overflowX !== 'visible' || style.overflowY !== 'visible')
        && !(ns === HTML_NS && (tag === 'body' || tag === 'html'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return null;
    }
    if (nameMode) {
      // In a name, a descendant's aria-label (or an image's alt) stands in for its content.
      const label = attrText(el, 'aria-label');
      if (label) labelText = label;
    }
    const visible = style.visibility === 'visible';
    if (labelText !== null) {
      return { kind: KIND_LABEL, text: visible ? labelText : '', sep: SEP_SPACE };
    }
    if (tag === 'br' && ns === HTML_NS) return { kind: KIND_BR };
    let sep = SEP_LINE;
    if (display === 'table-cell') sep = SEP_TAB;
    else if (INLINE_DISPLAYS.has(display)) sep = SEP_NONE;
    return {
      kind: KIND_BLOCK,
      sep: sep,
      visible: visible,
      pre: !nameMode && PRE_WHITE_SPACE.has(style.whiteSpace),
      noDescend: style.contentVisibility === 'hidden',
      closedDetails: tag === 'details' && ns === HTML_NS && !el.hasAttribute('open'),
    };
  }

  // The flat-tree parent of a node, or null when the node is not rendered through a slot.
  function flatParent(node) {
    const p = node.parentNode;
    if (p === null) return null;
    if (p.nodeType === 11) return p.host || null;
    if (p.nodeType === 1 && p.shadowRoot) return node.assignedSlot;
    return p;
  }

  function isFirstSummary(details, el) {
    return isHtml(el, 'summary') && details.querySelector(':scope > summary') === el;
  }

  const SLOT_LIMIT = {};

  // Whether light children assigned to `slot` are rendered: every flat-tree ancestor from the
  // slot up to `host` (already accepted by the walk) must pass classify. Each step is a node
  // visit of the shared budget. The chain is classified from the host down, so a style is
  // only read below a rendered parent (see styleIsStored). Returns {visible, pre} for text
  // directly in the slot, null when hidden, SLOT_LIMIT when the budget ran out.
  function slotContext(slot, host, st, limits, nameMode) {
    const cached = st.slotCache.get(slot);
    if (cached !== undefined) return cached;
    const chain = [];
    let cur = slot;
    while (cur !== host) {
      if (cur === null || cur.nodeType !== 1) {
        st.slotCache.set(slot, null);
        return null;
      }
      if (st.nodes >= limits.maxNodes) return SLOT_LIMIT;
      st.nodes += 1;
      chain.push(cur);
      cur = flatParent(cur);
    }
    let result = null;
    for (let i = chain.length - 1; i >= 0; i--) {
      const el = chain[i];
      const c = classify(el, nameMode, st.skipEl);
      if (c === null || c.kind !== KIND_BLOCK || c.noDescend) break;
      if (c.closedDetails && !(i > 0 && isFirstSummary(el, chain[i - 1]))) break;
      if (i === 0) result = { visible: c.visible, pre: c.pre };
    }
    st.slotCache.set(slot, result);
    return result;
  }

  // Reads one text node, at most the remaining unit budget. Returns false when the unit
  // budget stopped the walk.
  function readTextNode(node, pre, st, limits, sink) {
    const length = node.length;
    if (!length) return true;
    const room = limits.maxUnits - st.units;
    if (room <= 0) { st.textLimit = true; return false; }
    const take = length < room ? length : room;
    let s = node.substringData(0, take);
    st.units += take;
    const cut = take < length;
    if (cut) {
      st.textLimit = true;
      const last = s.charCodeAt(s.length - 1);
      if (last >= 0xD800 && last <= 0xDBFF) s = s.slice(0, -1);
    }
    s = wellFormed(s);
    if (pre) {
      const lines = s.split(/\r\n|[\r\n]/);
      for (let i = 0; i < lines.length; i++) {
        if (i) sink.lineBreak();
        sink.collapsed(lines[i]);
      }
    } else {
      sink.collapsed(s);
    }
    return !cut;
  }

  const PHASE_LIGHT = 0;
  const PHASE_SHADOW = 1;

  // Iterative walk of rendered text under `root` (a Document, or an element already accepted
  // by the caller): open shadow children before light children, light children of a shadow
  // host only through their slot, each text node once; with limits.lightOnly, shadow hosts
  // contribute nothing. No recursion, no child lists, every
  // node visit and text unit counted against `limits`.
  function walkText(root, limits, sink, nameMode, skipEl) {
    const st = {
      nodes: 0, units: 0, nodeLimit: false, textLimit: false,
      slotCache: new MapCtor(), skipEl: skipEl,
    };
    const frames = [];
    if (root.nodeType === 9) {
      frames.push({ el: null, next: root.firstChild, phase: PHASE_LIGHT, visible: true,
                    pre: false, exit: SEP_NONE, host: false, closedDetails: false,
                    summaryTaken: false });
    } else {
      const style = getStyle(root);
      const sr = limits.lightOnly === true ? null : root.shadowRoot;
      if (sr) watchRoot(sr);
      frames.push({ el: root, next: sr ? sr.firstChild : root.firstChild,
                    phase: sr ? PHASE_SHADOW : PHASE_LIGHT,
                    visible: style.visibility === 'visible', pre: false, exit: SEP_NONE,
                    host: false, closedDetails: false, summaryTaken: false });
    }
    while (frames.length !== 0) {
      const f = frames[frames.length - 1];
      const node = f.next;
      if (node === null) {
        if (f.phase === PHASE_SHADOW) {
          f.phase = PHASE_LIGHT;
          f.next = f.el.firstChild;
          f.host = true;
          continue;
        }
        frames.pop();
        sink.separate(f.exit);
        continue;
      }
      f.next = node.nextSibling;
      if (st.nodes >= limits.maxNodes) { st.nodeLimit = true; break; }
      st.nodes += 1;
      const type = node.nodeType;
      let visible = f.visible;
      let pre = f.pre;
      if (f.host) {
        if (type !== 1 && type !== 3) continue;
        const slot = node.assignedSlot;
        if (slot === null) continue; // not rendered
        const ctx = slotContext(slot, f.el, st, limits, nameMode);
        if (ctx === SLOT_LIMIT) { st.nodeLimit = true; break; }
        if (ctx === null) continue;
        visible = ctx.visible;
        pre = ctx.pre;
      } else if (f.closedDetails) {
        if (f.summaryTaken || type !== 1 || !isHtml(node, 'summary')) continue;
        f.summaryTaken = true;
      }
      if (type === 3 || type === 4) {
        if (!visible) continue;
        if (!readTextNode(node, pre, st, limits, sink)) break;
        continue;
      }
      if (type !== 1) continue;
      const c = classify(node, nameMode, skipEl);
      if (c === null) continue;
      if (c.kind === KIND_BR) { sink.lineBreak(); continue; }
      if (c.kind === KIND_LABEL) {
        if (c.text) {
          sink.separate(SEP_SPACE);
          sink.text(c.text);
          sink.separate(SEP_SPACE);
        }
        continue;
      }
      sink.separate(c.sep);
      let next = null;
      let phase = PHASE_LIGHT;
      if (!c.noDescend) {
        const sr = limits.lightOnly === true ? null : node.shadowRoot;
        if (limits.lightOnly === true && node.shadowRoot) {
          // Shadow content is outside this walk's scope (region summaries): the host's
          // light children are not rendered either, except through its shadow tree.
          sink.separate(c.sep);
          continue;
        }
        if (sr) {
          watchRoot(sr);
          next = sr.firstChild;
          phase = PHASE_SHADOW;
        } else {
          next = node.firstChild;
          // A slot's own children are fallback content, rendered only when nothing is
          // assigned to it.
          if (next !== null && isHtml(node, 'slot') && node.assignedNodes().length !== 0)
            next = null;
        }
      }
      if (next === null && phase === PHASE_LIGHT) {
        sink.separate(c.sep);
        continue;
      }
      frames.push({ el: node, next: next, phase: phase, visible: c.visible, pre: c.pre,
                    exit: c.sep, host: false, closedDetails: c.closedDetails,
                    summaryTaken: false });
    }
    return st;
  }

  // ---------------------------------------------------------------- candidates and visibility

  function isDetailsOrSummary(el) {
    return el.namespaceURI === HTML_NS && (el.localName === 'details' || el.localName === 'summary');
  }

  // Playwright's element.closest('details,summary') rule for browsers without
  // checkVisibility: inside a closed <details>, outside its summary. `ctx` is the nearest
  // details/summary ancestor in the same tree, tracked by the walk.
  function hiddenByDetails(el, ctx) {
    if (isDetailsOrSummary(el)) return false;
    return ctx !== null && ctx.localName === 'details' && !ctx.hasAttribute('open');
  }

  // Flags a candidate inherits from its ancestors (across shadow boundaries).
  const FLAG_QUIET = 1; // inside hidden / aria-hidden / inert: its name is never read
  const FLAG_INERT = 2; // inside inert: not operable, reported disabled

  // Main document and open shadow roots, pre-order, shadow children before light children.
  // The n-th match of this walk has candidate position n. A walk is a cursor: next() returns
  // the match at `position` and stops right after it, with the element's children already
  // queued, so a later next() (or a clone's) continues exactly where it stopped. The walk
  // ends after MAX_ACQUIRE_VISITS element visits, counted from the start of the document
  // (walkLimit). Frames: {el, next, phase, ctx, lightCtx, flags}.
  function CandidateWalk(root) {
    const top = root !== null ? root : doc.documentElement;
    this.root = root;
    this.position = 0;
    this.visits = 0;
    this.walkLimit = false;
    // The walk covers `top` and its subtree, never its siblings.
    this.frames = top === null ? []
      : [{ el: null, next: top, phase: PHASE_LIGHT, ctx: null, lightCtx: null, flags: 0 }];
  }
  // The next candidate {el, ctx, flags}, or null when the walk is over.
  CandidateWalk.prototype.next = function () {
    const frames = this.frames;
    while (frames.length !== 0) {
      const f = frames[frames.length - 1];
      const el = f.next;
      if (el === null) {
        if (f.phase === PHASE_SHADOW) {
          f.phase = PHASE_LIGHT;
          f.next = f.el.firstElementChild;
          f.ctx = f.lightCtx;
          continue;
        }
        frames.pop();
        continue;
      }
      if (this.visits >= MAX_ACQUIRE_VISITS) {
        this.walkLimit = true;
        frames.length = 0;
        return null;
      }
      f.next = f.el === null ? null : el.nextElementSibling;
      this.visits += 1;
      let elFlags = f.flags;
      if (el.hasAttribute('inert')) elFlags |= FLAG_QUIET | FLAG_INERT;
      else if (el.hasAttribute('hidden') || attrIs(el, 'aria-hidden', 'true')) elFlags |= FLAG_QUIET;
      const match = el.matches(CANDIDATE_SELECTOR) ? { el: el, ctx: f.ctx, flags: elFlags } : null;
      const childCtx = isDetailsOrSummary(el) ? el : f.ctx;
      const sr = el.shadowRoot;
      if (sr) {
        watchRoot(sr);
        frames.push({ el: el, next: sr.firstElementChild, phase: PHASE_SHADOW, ctx: null,
                      lightCtx: childCtx, flags: elFlags });
      } else if (el.firstElementChild !== null) {
        frames.push({ el: el, next: el.firstElementChild, phase: PHASE_LIGHT, ctx: childCtx,
                      lightCtx: null, flags: elFlags });
      }
      if (match !== null) {
        this.position += 1;
        return match;
      }
    }
    return null;
  };
  CandidateWalk.prototype.clone = function () {
    const copy = new CandidateWalk(null);
    copy.root = this.root;
    copy.position = this.position;
    copy.visits = this.visits;
    copy.walkLimit = this.walkLimit;
    copy.frames = this.frames.map((f) => ({ el: f.el, next: f.next, phase: f.phase, ctx: f.ctx,
                                            lightCtx: f.lightCtx, flags: f.flags }));
    return copy;
  };

  // The candidates of one window, from candidate position `start` on, taken one at a time:
  // first `items` (candidates a previous window already walked, from `start` on), then the
  // walk. Every candidate taken is appended to `items`, so afterwards the walk stands right
  // after the last of them: walk.position === start + items.length.
  function WindowCandidates(walk, start, items) {
    this.walk = walk;
    this.start = start;
    this.items = items;
    this.taken = 0;
    this.resumed = false;
  }
  WindowCandidates.prototype.take = function () {
    if (this.taken < this.items.length) return this.items[this.taken++];
    const item = this.walk.next();
    if (item === null) return null;
    this.items.push(item);
    this.taken += 1;
    return item;
  };

  // The candidates from `start` on for a capture that may continue the committed one. The
  // committed capture's walk resumes, with no element visited twice, when it covered `start`
  // and no DOM mutation happened since (positions depend on elements and attributes only);
  // otherwise a fresh walk from the start of the document (or the focused region) counts the
  // candidates before `start` without keeping them. Neither ever passes MAX_POSITIONS: the
  // caller takes at most the window plus one lookahead.
  function windowCandidates(start, root, saved) {
    if (saved !== null && saved.walk.root === root && saved.dom === domEpoch
        && saved.walk.position === saved.start + saved.items.length
        && start >= saved.start && start - saved.start <= saved.items.length) {
      const resumed = new WindowCandidates(saved.walk.clone(), start,
                                           saved.items.slice(start - saved.start));
      resumed.resumed = true;
      return resumed;
    }
    const walk = new CandidateWalk(root);
    while (walk.position < start && walk.next() !== null) {
      // counted, not kept
    }
    return new WindowCandidates(walk, start, []);
  }

  function rectNonEmpty(r) {
    return r.width > 0 && r.height > 0;
  }

  // Whether reading el's computed style is cheap and harmless. Reading the style of an
  // element inside a display:none subtree makes Blink compute ("ensure") styles for every
  // ancestor up to that subtree, and Chromium 102 then crashes tearing down a deep such
  // subtree (measured: 100,000 levels). Safe when el has a layout box, or when every box-less
  // flat-tree ancestor up to the nearest boxed one (at most MAX_STYLE_CHAIN) is
  // display:contents. Styles are then read from the top down, each below a rendered parent.
  function styleIsStored(el) {
    if (el.getClientRects().length !== 0) return true;
    const chain = [];
    let cur = flatParent(el);
    for (;;) {
      if (cur === null || chain.length > MAX_STYLE_CHAIN) return false;
      if (cur.nodeType === 9) break; // the root element's style always exists
      if (cur.nodeType !== 1) return false;
      if (cur.getClientRects().length !== 0) break;
      chain.push(cur);
      cur = flatParent(cur);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      if (getStyle(chain[i]).display !== 'contents') return false;
    }
    return true;
  }

  // Playwright's isElementVisible without Element.checkVisibility (Chromium 102): a
  // display:contents element is visible iff a child element is visible or a child text
  // node has a non-empty range rect (bounded: MAX_CONTENTS_VISITS children, iterative);
  // otherwise visibility must be 'visible', the element must not be inside a closed
  // <details> outside its summary, and its bounding box must be non-empty. Evaluated in an
  // order that never reads a style inside a display:none subtree (styleIsStored): an element
  // with a layout box is not display:contents, and one without a box is visible only
  // through display:contents.
  function isVisible(el, ctx, range) {
    const stack = [el];
    const ctxStack = [ctx];
    const storedStack = [false];
    let budget = MAX_CONTENTS_VISITS;
    while (stack.length !== 0) {
      const e = stack.pop();
      const eCtx = ctxStack.pop();
      const parentRendered = storedStack.pop();
      if (hiddenByDetails(e, eCtx)) continue;
      if (e.getClientRects().length !== 0) {
        if (getStyle(e).visibility !== 'visible') continue;
        if (rectNonEmpty(e.getBoundingClientRect())) return true;
        continue;
      }
      if (!parentRendered && !styleIsStored(e)) continue;
      if (getStyle(e).display !== 'contents') continue;
      const childCtx = isDetailsOrSummary(e) ? e : eCtx;
      for (let c = e.firstChild; c !== null; c = c.nextSibling) {
        if (--budget < 0) return false;
        if (c.nodeType === 1) {
          stack.push(c);
          ctxStack.push(childCtx);
          storedStack.push(true);
        } else if (c.nodeType === 3) {
          range.selectNode(c);
          if (rectNonEmpty(range.getBoundingClientRect())) return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- roles, names, states

  function isEditingHost(el) {
    const v = el.getAttribute('contenteditable');
    return v !== null && !attrIs(el, 'contenteditable', 'false') && el.isContentEditable === true;
  }

  function inputType(el) {
    return String(el.type || '').toLowerCase();
  }

  function implicitRole(el) {
    const tag = el.localName;
    if (el.namespaceURI !== HTML_NS) {
      if (tag === 'a' && (el.hasAttribute('href') || el.hasAttribute('xlink:href'))) return 'link';
      return 'generic';
    }
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'input') {
      const type = inputType(el);
      if (type === 'search') return el.list ? 'combobox' : 'searchbox';
      if (type === 'email' || type === 'tel' || type === 'text' || type === 'url' || type === '')
        return el.list ? 'combobox' : 'textbox';
      return INPUT_ROLE_BY_TYPE.get(type) || 'textbox';
    }
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (isEditingHost(el)) return 'textbox';
    if (tag === 'img') return el.getAttribute('alt') === '' ? 'generic' : 'img';
    return IMPLICIT_ROLE_BY_TAG.get(tag) || 'generic';
  }

  // Every candidate is interactive, so none/presentation yield to the implicit role
  // (ARIA presentational-role conflict resolution).
  function roleOf(el) {
    const explicit = explicitRole(el);
    if (explicit && explicit !== 'none' && explicit !== 'presentation')
      return cutUnits(explicit, MAX_ROLE_UNITS);
    return cutUnits(implicitRole(el), MAX_ROLE_UNITS);
  }

  // Within one capture, the NAME_LIMITS walk of each element's own subtree (no element
  // skipped), kept so the approval sidecar's text of the same element (act.js, factSubtree)
  // reuses a walk that read the whole subtree instead of walking it again. A capture runs
  // synchronously, so the DOM cannot change within it; outside one nothing is kept.
  let subtreeWalks = null;
  function subtreeWalk(el) {
    const known = subtreeWalks === null ? undefined : subtreeWalks.get(el);
    if (known !== undefined) return known;
    const sink = new TextSink(NAME_LIMITS.maxBytes, true);
    const st = walkText(el, NAME_LIMITS, sink, true, null);
    const walk = { text: sink.result(), units: st.units, bytes: sink.bytes,
                   whole: !st.nodeLimit && !st.textLimit && !sink.full };
    if (subtreeWalks !== null) subtreeWalks.set(el, walk);
    return walk;
  }

  // Rendered text of an element's subtree for a name: hidden, editable and form-control
  // content excluded, bounded by NAME_LIMITS.
  function subtreeName(el, skipEl) {
    if (skipEl === null) return collapseLine(subtreeWalk(el).text, MAX_NAME_UNITS);
    const sink = new TextSink(NAME_LIMITS.maxBytes, true);
    walkText(el, NAME_LIMITS, sink, true, skipEl);
    return collapseLine(sink.result(), MAX_NAME_UNITS);
  }

  // Text of a referenced or label element: only when it is itself rendered content.
  function referencedName(ref, skipEl) {
    if (!styleIsStored(ref)) return '';
    const c = classify(ref, true, skipEl);
    if (c === null) return '';
    if (c.kind === KIND_LABEL) return c.text;
    if (c.kind !== KIND_BLOCK || c.noDescend) return '';
    return subtreeName(ref, skipEl);
  }

  function joinNames(parts) {
    return collapseLine(parts.join(' '), MAX_NAME_UNITS);
  }

  // label[for] elements of one tree (a document or a shadow root) by their for value, in tree
  // order; built once per tree and kept while the DOM does not change.
  let labelIndex = { epoch: -1, trees: new MapCtor() };
  function labelsFor(tree, id) {
    if (labelIndex.epoch !== domEpoch) labelIndex = { epoch: domEpoch, trees: new MapCtor() };
    let byFor = labelIndex.trees.get(tree);
    if (byFor === undefined) {
      byFor = new MapCtor();
      if (tree.nodeType === 11) watchRoot(tree);
      const all = tree.querySelectorAll('label[for]');
      for (let i = 0; i < all.length; i++) {
        const value = all[i].getAttribute('for');
        const list = byFor.get(value);
        if (list === undefined) byFor.set(value, [all[i]]);
        else list.push(all[i]);
      }
      labelIndex.trees.set(tree, byFor);
    }
    return byFor.get(id) || [];
  }

  // The first MAX_LABELS of element.labels, without its cost: Chromium computes that list by
  // visiting the whole tree for every control, which would make each window's names cost the
  // size of the page. The same labels in tree order: those whose control is el among its
  // ancestor labels (a label without for labels its first labelable descendant) and among the
  // label[for] elements naming its id (a label with for labels what getElementById finds).
  // null for an element that cannot be labelled, like element.labels.
  function labelsOf(el) {
    if (!el.labels) return null;
    const ancestors = []; // innermost first
    for (let l = el.closest('label'); l !== null;
         l = l.parentElement === null ? null : l.parentElement.closest('label')) {
      if (l.control === el) ancestors.push(l);
    }
    const outer = ancestors.reverse().slice(0, MAX_LABELS);
    const named = [];
    const id = el.id;
    if (typeof id === 'string' && id !== '') {
      const candidates = labelsFor(el.getRootNode(), id);
      for (let i = 0; i < candidates.length && named.length < MAX_LABELS; i++) {
        const l = candidates[i];
        if (l.control === el && ancestors.indexOf(l) < 0) named.push(l);
      }
    }
    // Merge the two tree-ordered lists (compareDocumentPosition: 4 = the argument follows).
    const labels = [];
    let a = 0;
    let n = 0;
    while (labels.length < MAX_LABELS && (a < outer.length || n < named.length)) {
      if (n >= named.length
          || (a < outer.length && (outer[a].compareDocumentPosition(named[n]) & 4) !== 0))
        labels.push(outer[a++]);
      else
        labels.push(named[n++]);
    }
    return labels;
  }

  function nameOf(el, role) {
    // 1. aria-labelledby: referenced elements in the element's own tree.
    const ids = el.getAttribute('aria-labelledby');
    if (ids !== null) {
      const root = el.getRootNode();
      const tokens = cutUnits(ids, 4096).split(/[ \t\n\f\r]+/);
      const parts = [];
      let total = 0;
      for (let i = 0, used = 0; i < tokens.length && used < MAX_LABELLEDBY_IDS; i++) {
        if (!tokens[i]) continue;
        used += 1;
        const ref = typeof root.getElementById === 'function' ? root.getElementById(tokens[i]) : null;
        if (ref === null) continue;
        const text = referencedName(ref, null);
        if (text) { parts.push(text); total += text.length; }
        if (total >= MAX_NAME_UNITS) break;
      }
      const name = joinNames(parts);
      if (name) return name;
    }
    // 2. aria-label.
    const label = attrText(el, 'aria-label');
    if (label) return label;
    // 3. Native labels (label[for] in the same tree, wrapping label), without the control
    //    itself and without any control values inside the label.
    const labels = labelsOf(el);
    if (labels) {
      const parts = [];
      for (let i = 0; i < labels.length && i < MAX_LABELS; i++) {
        const text = referencedName(labels[i], el);
        if (text) parts.push(text);
      }
      const name = joinNames(parts);
      if (name) return name;
    }
    const html = el.namespaceURI === HTML_NS;
    const tag = el.localName;
    const type = html && tag === 'input' ? inputType(el) : '';
    // 4. alt of images and image buttons.
    if (html && (tag === 'img' || tag === 'area' || type === 'image')) {
      const alt = attrText(el, 'alt');
      if (alt) return alt;
    }
    // 5. Button captions: the value attribute of button-type inputs is not user input.
    if (type === 'button' || type === 'submit' || type === 'reset') {
      const caption = attrText(el, 'value');
      if (caption) return caption;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    // 6. Own rendered content, for roles named from content and never for editors: before
    //    the tooltip, as accname 1.2 orders them ("Edit", not "Edit this page [alt-shift-e]").
    const editor = (html && (tag === 'input' || tag === 'select' || tag === 'textarea')) ||
                   el.isContentEditable === true;
    if (NAME_FROM_CONTENT_ROLES.has(role) && !editor) {
      const content = subtreeName(el, null);
      if (content) return content;
    }
    // 7. title, 8. placeholder.
    const title = attrText(el, 'title');
    if (title) return title;
    const placeholder = attrText(el, 'placeholder') || attrText(el, 'aria-placeholder');
    return placeholder || '';
  }

  function isDisabled(el) {
    if (el.matches(':disabled')) return true;
    let e = el;
    for (let i = 0; e !== null && i <= MAX_ARIA_DISABLED_ANCESTORS; i++) {
      if (attrIs(e, 'aria-disabled', 'true')) return true;
      e = e.parentElement;
    }
    return false;
  }

  function stateOf(el, role) {
    const html = el.namespaceURI === HTML_NS;
    const tag = el.localName;
    const nativeInput = html && tag === 'input';
    const type = nativeInput ? inputType(el) : '';

    let checked = null;
    if (CHECKED_ROLES.has(role)) {
      if (nativeInput && (type === 'checkbox' || type === 'radio')) {
        checked = type === 'checkbox' && el.indeterminate === true ? 'mixed' : el.checked === true;
      } else if (attrIs(el, 'aria-checked', 'true')) {
        checked = true;
      } else if (attrIs(el, 'aria-checked', 'mixed')) {
        checked = MIXED_ROLES.has(role) ? 'mixed' : false;
      } else {
        checked = false;
      }
    }

    let selected = null;
    if (SELECTED_ROLES.has(role)) {
      selected = html && tag === 'option' ? el.selected === true : attrIs(el, 'aria-selected', 'true');
    }

    let expanded = null;
    const parent = el.parentElement;
    if (html && tag === 'summary' && parent !== null && isHtml(parent, 'details')
        && isFirstSummary(parent, el)) {
      expanded = parent.hasAttribute('open');
    } else if (attrIs(el, 'aria-expanded', 'true')) {
      expanded = true;
    } else if (attrIs(el, 'aria-expanded', 'false')) {
      expanded = false;
    }

    const nativeRequired = html && (tag === 'input' || tag === 'select' || tag === 'textarea')
      && el.required === true;
    const required = nativeRequired || attrIs(el, 'aria-required', 'true');

    return { disabled: isDisabled(el), checked: checked, selected: selected,
             expanded: expanded, required: required };
  }

  // ---------------------------------------------------------------- handle maps

  // captureId -> { handles: Map(ref -> Element), positions: Map(ref -> candidate position),
  //               identities: Map(ref -> {role, name} as captured, or null for a quiet
  //               control whose name was not read), regions: Map(ref -> Element),
  //               root: the focused region or null }
  const pendingCaptures = new MapCtor();
  // The committed capture: { id, handles, positions, identities, regions, root }.
  let current = null;

  function validId(v, maxUnits) {
    return typeof v === 'string' && v.length > 0 && v.length <= maxUnits;
  }

  function captureTitle() {
    const t = doc.title;
    return typeof t === 'string' ? collapseLine(cutUnits(t, MAX_TITLE_UNITS * 8), MAX_TITLE_UNITS) : '';
  }

  function captureText(root) {
    const sink = new TextSink(MAX_TEXT_BYTES, false);
    const limits = { maxNodes: MAX_TEXT_NODES, maxUnits: MAX_TEXT_UNITS };
    const st = walkText(root !== null ? root : doc, limits, sink, false, null);
    const omitted = sink.omitted < MAX_OMITTED_BYTES ? sink.omitted : MAX_OMITTED_BYTES;
    return {
      text: sink.result(),
      coverage: {
        version: 1,
        scope: root !== null ? 'focused_region' : 'main_document_open_shadow_roots',
        scanned_nodes: st.nodes,
        scanned_text_units: st.units,
        node_limit_reached: st.nodeLimit,
        text_limit_reached: st.textLimit,
        omitted_text_bytes: omitted,
      },
    };
  }

  function isPosition(v) {
    return typeof v === 'number' && v % 1 === 0 && v >= 0 && v < MAX_POSITIONS;
  }

  // opts: {captureId, refPrefix} for the first window; plus {current, after: ref} to continue
  // after an element of the committed capture `current`, or {current, start: position} at a
  // continuation cursor's position, or {current, focus: regionRef} to read one region of it.
  // The window scans at most MAX_CANDIDATES candidates from its first position; an `after`
  // window starts at the anchor's recorded position, counts the anchor as scanned and never
  // returns it. A focused capture walks controls and text of the region only, and its
  // continuations stay in that region.
  // The visible frames of a CAPTCHA service, for the sign-in challenge detector: a frame whose
  // address or title names one (a site-independent list of the services, never a website's
  // own pages). The badge an invisible reCAPTCHA shows on every page is not a challenge. The
  // frame's address is read here and never leaves this world: only the count does.
  const CAPTCHA_ADDRESS = /captcha|challenges\.cloudflare\.com|turnstile|arkoselabs/i;
  const CAPTCHA_TITLE = /captcha|security challenge/i;
  const MAX_CHALLENGE_FRAMES = 16;
  // The document's frames (all of them), then those inside the open shadow roots that a walk
  // of at most MAX_CANDIDATES elements finds (a page built of web components keeps its frames
  // there); at most MAX_CANDIDATES frames are looked at.
  function challengeFrames() {
    const range = doc.createRange();
    let count = 0;
    let looked = 0;
    const countIn = (frames) => {
      for (let i = 0; i < frames.length && looked < MAX_CANDIDATES &&
           count < MAX_CHALLENGE_FRAMES; i++) {
        looked++;
        const frame = frames[i];
        const address = String(frame.getAttribute('src') || '').slice(0, MAX_URL_UNITS);
        const title = String(frame.getAttribute('title') || '').slice(0, MAX_URL_UNITS);
        if (!CAPTCHA_ADDRESS.test(address) && !CAPTCHA_TITLE.test(title)) continue;
        if (/[?&#]size=invisible(&|$)/i.test(address) ||
            frame.closest('.grecaptcha-badge') !== null)
          continue;
        if (isVisible(frame, null, range)) count++;
      }
    };
    countIn(doc.getElementsByTagName('iframe'));
    const pending = [doc];
    let visited = 0;
    while (pending.length !== 0 && visited < MAX_CANDIDATES && count < MAX_CHALLENGE_FRAMES) {
      const walker = doc.createTreeWalker(pending.pop(), 1 /* NodeFilter.SHOW_ELEMENT */);
      for (let el = walker.nextNode(); el !== null && visited < MAX_CANDIDATES;
           el = walker.nextNode()) {
        visited++;
        const sr = el.shadowRoot;
        if (!sr) continue;
        pending.push(sr);
        countIn(sr.querySelectorAll('iframe'));
      }
    }
    range.detach();
    return count;
  }

  function capture(opts) {
    subtreeWalks = new MapCtor();
    try {
      return captureWindow(opts);
    } finally {
      subtreeWalks = null;
    }
  }

  function captureWindow(opts) {
    if (opts === null || typeof opts !== 'object') return FAILED;
    const captureId = opts.captureId;
    const refPrefix = opts.refPrefix;
    if (!validId(captureId, MAX_CAPTURE_ID_UNITS) || !validId(refPrefix, MAX_REF_UNITS - 5))
      return FAILED;
    const after = opts.after;
    const startOpt = opts.start;
    const focusOpt = opts.focus;
    if ((after !== undefined) + (startOpt !== undefined) + (focusOpt !== undefined) > 1)
      return FAILED;
    // {extract} (extract.js): refused before anything is read; otherwise the first window.
    const extractOpts = opts.extract;
    if (extractOpts !== undefined) {
      const refusal = extractRefusal(opts);
      if (refusal !== null) return refusal;
    }
    let start = 0;
    let anchor = null;
    let root = null;
    // Only a window of the committed capture's own walk (after or start) may reuse what that
    // capture walked and read; a first window, a focus and an extraction read everything.
    let continued = null;
    const range = doc.createRange();
    if (after !== undefined || startOpt !== undefined || focusOpt !== undefined) {
      // Continuations and focus belong to the committed capture of this very document.
      if (!validId(opts.current, MAX_CAPTURE_ID_UNITS)) return FAILED;
      if (current === null || current.id !== opts.current) return PAGE_CHANGED;
      root = current.root;
      if (focusOpt !== undefined) {
        if (!validId(focusOpt, MAX_REF_UNITS)) return FAILED;
        root = current.regions.get(focusOpt);
        if (root === undefined || root.isConnected !== true || !isVisible(root, null, range))
          return PAGE_CHANGED;
      } else if (after !== undefined) {
        if (!validId(after, MAX_REF_UNITS)) return FAILED;
        anchor = current.handles.get(after);
        if (anchor === undefined || anchor.isConnected !== true) return PAGE_CHANGED;
        start = current.positions.get(after);
        continued = current;
      } else {
        if (!isPosition(startOpt)) return FAILED;
        start = startOpt;
        continued = current;
      }
    }

    // The window: at most MAX_CANDIDATES positions, never past MAX_POSITIONS; one more
    // handle is taken as the lookahead that says whether candidates remain.
    const windowSize = MAX_POSITIONS - start < MAX_CANDIDATES ? MAX_POSITIONS - start : MAX_CANDIDATES;
    const candidates = windowCandidates(start, root, continued !== null ? continued.walk : null);
    const visitsBefore = candidates.walk.visits;
    let scanned = 0;
    if (anchor !== null) {
      // The anchor must still be the same node at its recorded position. Scanned, never
      // returned.
      const first = candidates.take();
      if (first === null || first.el !== anchor) return PAGE_CHANGED;
      scanned = 1;
    }

    const title = captureTitle();
    // Readable text and regions depend on styles and layout as well as on the DOM: the
    // continued capture's are reused only while no mutation, resource load or style sheet
    // change happened since they were read.
    const reuse = continued !== null && continued.read.root === root
      && continued.read.render === renderEpoch;
    const readable = reuse ? continued.read.readable : captureText(root);
    const regionScan = reuse ? continued.read.regionScan : scanRegionRecords(root, range);
    const regions = regionsWithRefs(regionScan, refPrefix);

    // Candidates are taken one at a time until 256 are visible or the window's positions are
    // all checked; one more is taken as the lookahead that says whether candidates remain.
    const kept = [];
    const keptFlags = [];
    const keptPositions = [];
    while (scanned < windowSize && kept.length < MAX_ELEMENTS) {
      const candidate = candidates.take();
      if (candidate === null) break;
      if (isVisible(candidate.el, candidate.ctx, range)) {
        kept.push(candidate.el);
        keptFlags.push(candidate.flags);
        keptPositions.push(start + scanned);
      }
      scanned += 1;
    }
    range.detach();

    // The next window starts right after this one (right after the last kept control when
    // 256 filled it). null: no candidate remains (covered), or a bound stopped the walk.
    const end = start + scanned;
    let nextPosition = null;
    let scanLimit = false;
    if (candidates.take() !== null) {
      if (end < MAX_POSITIONS) nextPosition = end;
      else scanLimit = true;
    } else if (candidates.walk.walkLimit) {
      scanLimit = true;
    }

    const handles = new MapCtor();
    const positions = new MapCtor();
    const identities = new MapCtor();
    const elements = [];
    const facts = []; // the approval sidecar (act.js), parallel to elements
    for (let i = 0; i < kept.length; i++) {
      const el = kept[i];
      const ref = refPrefix + '.' + i;
      const role = roleOf(el);
      // A control rendered inside a hidden, ARIA-hidden or inert subtree keeps its slot
      // (Playwright's visibility rule) but its name, like all hidden text, is not read.
      const name = keptFlags[i] & FLAG_QUIET ? '' : nameOf(el, role);
      const state = stateOf(el, role);
      if (keptFlags[i] & FLAG_INERT) state.disabled = true;
      elements.push({ ref: ref, role: role, name: name, state: state });
      facts.push(elementFacts(el, role, (keptFlags[i] & FLAG_QUIET) !== 0));
      handles.set(ref, el);
      positions.set(ref, keptPositions[i]);
      identities.set(ref, keptFlags[i] & FLAG_QUIET ? null : { role: role, name: name });
    }

    const extraction = extractOpts !== undefined ? extractCollection(extractOpts) : undefined;
    // The draft receipt (act.js): a verdict on the provider's own submitted text, never text.
    let draft;
    if (opts.draft !== undefined) {
      const draftRange = doc.createRange();
      draft = draftCheck(opts.draft, root, draftRange);
      draftRange.detach();
    }

    pendingCaptures.delete(captureId);
    pendingCaptures.set(captureId, {
      handles: handles, positions: positions, identities: identities, regions: regions.handles,
      root: root,
      // Where this capture's walk stopped, for a continuation to resume from.
      walk: { walk: candidates.walk, items: candidates.items, start: start, dom: domEpoch },
      read: { root: root, render: renderEpoch, readable: readable, regionScan: regionScan },
      work: { visits: candidates.walk.visits - visitsBefore, resumed: candidates.resumed,
              read: !reuse },
    });
    while (pendingCaptures.size > MAX_PENDING_CAPTURES) {
      pendingCaptures.delete(pendingCaptures.keys().next().value);
    }

    // Reused text is not sent again (stringify leaves out undefined members): the provider
    // keeps the text of the capture this one continues.
    const out = {
      ok: true,
      title: title,
      text: reuse ? undefined : readable.text,
      text_coverage: reuse ? undefined : readable.coverage,
      text_unchanged: reuse ? true : undefined,
      elements: elements,
      facts: facts,
      challenge_frames: challengeFrames(),
      regions: regions.records,
      region_coverage: regions.coverage,
      coverage: {
        candidate_offset: start,
        scanned_candidates: scanned,
        next_position: nextPosition,
        scan_limit_reached: scanLimit,
      },
    };
    // A focused capture names the region's ref in this capture (always the first region).
    if (root !== null) out.focus = { region_ref: regions.records[0].ref };
    if (extraction !== undefined) out.extraction = extraction;
    if (draft !== undefined) out.draft = draft;
    return stringify(out);
  }

  function commit(captureId) {
    if (typeof captureId !== 'string' || !pendingCaptures.has(captureId)) return NOT_FOUND;
    const committed = pendingCaptures.get(captureId);
    current = { id: captureId, handles: committed.handles, positions: committed.positions,
                identities: committed.identities, regions: committed.regions,
                root: committed.root, walk: committed.walk, read: committed.read,
                work: committed.work };
    pendingCaptures.clear();
    return OK;
  }

  function discard(captureId) {
    if (typeof captureId === 'string') pendingCaptures.delete(captureId);
    current = null;
    return OK;
  }

  function state() {
    return stringify({
      ok: true,
      current: current === null ? null : current.id,
      handles: current === null ? 0 : current.handles.size,
      pending: pendingCaptures.size,
    });
  }

  // What the committed capture's window cost: the element visits of its candidate walk,
  // whether it resumed the walk of the capture it continued, and whether it read the readable
  // text and regions (or reused the continued capture's). For tests and the benchmark.
  function work() {
    if (current === null) return NOT_FOUND;
    return stringify({ ok: true, element_visits: current.work.visits,
                       resumed: current.work.resumed, read_text: current.work.read });
  }

  function lookup(ref) {
    if (current === null || typeof ref !== 'string' || !current.handles.has(ref)) return NOT_FOUND;
    return stringify({ ok: true, connected: current.handles.get(ref).isConnected === true });
  }

  // ---------------------------------------------------------------- change evidence
  //
  // What lets a continuation reuse the work of the capture it continues instead of starting
  // over. domEpoch counts DOM changes (childList, attributes, characterData) of the document
  // and of every open shadow root a walk entered; renderEpoch also counts finished resource
  // loads and changes of the document's style sheets (their number, disabled flags, rule
  // counts, adopted sheets), and moves whenever domEpoch moves. Both only ever grow.
  let domEpoch = 0;
  let renderEpoch = 0;
  let styleKey = '';
  let changeObserver = null;
  const CHANGE_OPTIONS = { subtree: true, childList: true, attributes: true,
                           characterData: true };
  const watchedRoots = new WeakSetCtor();
  try {
    changeObserver = new win.MutationObserver(() => {
      domEpoch += 1;
      renderEpoch += 1;
    });
    changeObserver.observe(doc, CHANGE_OPTIONS);
  } catch (e) {
    // No change evidence: nothing is ever reused (noteChanges moves the epochs every time).
    changeObserver = null;
  }

  // A shadow root a walk enters: its changes count from now on (the document observer does
  // not see into shadow trees).
  function watchRoot(shadowRoot) {
    if (changeObserver === null || watchedRoots.has(shadowRoot)) return;
    watchedRoots.add(shadowRoot);
    changeObserver.observe(shadowRoot, CHANGE_OPTIONS);
  }

  function currentStyleKey() {
    const sheets = doc.styleSheets;
    const count = sheets.length < MAX_STYLE_KEY_SHEETS ? sheets.length : MAX_STYLE_KEY_SHEETS;
    let key = String(sheets.length);
    for (let i = 0; i < count; i++) {
      const sheet = sheets[i];
      let rules = -1;
      try {
        rules = sheet.cssRules.length;
      } catch (e) {
        // Another origin's sheet: its rules are closed to the page's scripts as well.
      }
      key += (sheet.disabled ? ',d' : ',') + rules;
    }
    const adopted = doc.adoptedStyleSheets;
    return key + '/' + (adopted ? adopted.length : 0);
  }

  // Brings the epochs up to date with changes whose notifications are still queued (they are
  // delivered after the current task) and with the style sheets. Runs at every entry point;
  // never throws (without evidence, nothing counts as unchanged).
  function noteChanges() {
    try {
      if (changeObserver === null || changeObserver.takeRecords().length !== 0) {
        domEpoch += 1;
        renderEpoch += 1;
      }
      if (resourceObserver !== null) recordResources(resourceObserver.takeRecords());
      const key = currentStyleKey();
      if (key !== styleKey) {
        styleKey = key;
        renderEpoch += 1;
      }
    } catch (e) {
      domEpoch += 1;
      renderEpoch += 1;
    }
  }

  // ---------------------------------------------------------------- settling evidence

  const resourceCounts = new MapCtor(); // entry name -> number of resource-timing entries
  let lastMutation = now();

  function recordResource(name) {
    if (typeof name !== 'string' || name.length > MAX_URL_UNITS) return;
    const count = resourceCounts.get(name);
    if (count !== undefined) {
      if (count < MAX_RESOURCE_COUNT) resourceCounts.set(name, count + 1);
    } else if (resourceCounts.size < MAX_RESOURCE_NAMES) {
      resourceCounts.set(name, 1);
    }
  }

  let resourceObserver = null;
  function recordResources(entries) {
    for (let i = 0; i < entries.length; i++) recordResource(entries[i].name);
    if (entries.length !== 0) renderEpoch += 1;
  }
  try {
    resourceObserver = new win.PerformanceObserver((list) => {
      recordResources(list.getEntries());
    });
    resourceObserver.observe({ type: 'resource', buffered: true });
  } catch (e) {
    // No resource evidence: settleProbe reports nothing completed.
    resourceObserver = null;
  }
  try {
    const mutations = new win.MutationObserver(() => { lastMutation = now(); });
    mutations.observe(doc, { subtree: true, childList: true, attributes: true,
                             characterData: true });
  } catch (e) {
    // No mutation evidence: quietMs counts from document creation.
  }

  function navigationName() {
    const entries = perf.getEntriesByType('navigation');
    return entries.length !== 0 && typeof entries[0].name === 'string' ? entries[0].name : null;
  }

  function settleProbe(opts) {
    const pending = opts !== null && typeof opts === 'object' && isArray(opts.pending) ? opts.pending : [];
    const count = pending.length < MAX_PROBE_URLS ? pending.length : MAX_PROBE_URLS;
    const navigation = navigationName();
    const seen = new MapCtor();
    const completed = [];
    for (let i = 0; i < count; i++) {
      const url = pending[i];
      if (typeof url !== 'string' || url.length > MAX_URL_UNITS) continue;
      const n = (seen.get(url) || 0) + 1;
      seen.set(url, n);
      const available = (resourceCounts.get(url) || 0) + (url === navigation ? 1 : 0);
      if (n <= available) completed.push(i);
    }
    const quiet = Math.floor(now() - lastMutation);
    return stringify({
      ok: true,
      readyState: String(doc.readyState),
      quietMs: quiet > 0 ? quiet : 0,
      completed: completed,
    });
  }

  // ---------------------------------------------------------------- modules

  // regions.js, extract.js and act.js are spliced in here (webengine/Collector.cpp): they share this
  // closure and its helpers.
  // @modules

  // ---------------------------------------------------------------- entry points

  function guarded(fn) {
    return function (arg) {
      noteChanges();
      try {
        const out = fn(arg);
        return typeof out === 'string' ? out : FAILED;
      } catch (e) {
        return FAILED;
      }
    };
  }

  defineProperty(globalThis, '__veetbot', {
    value: freeze({
      capture: guarded(capture),
      commit: guarded(commit),
      discard: guarded(discard),
      state: guarded(state),
      lookup: guarded(lookup),
      work: guarded(work),
      settleProbe: guarded(settleProbe),
      actTrial: guarded(actTrial),
      actSeen: guarded(actSeen),
      actPerform: guarded(actPerform),
    }),
    writable: false,
    enumerable: false,
    configurable: false,
  });
})();
