  // ---------------------------------------------------------------- actions (act.js)
  //
  // Spliced into collector.js. The in-page half of browser.act (docs/actions.md "Dispatch").
  //
  // Targets are only the committed capture's handles (`current.handles`): a ref is never
  // re-resolved. actTrial decides whether the target is actionable now (connected, visible,
  // enabled, in the viewport, stable across two animation frames, hit at its centre); it
  // sends nothing itself and the provider repeats it until it answers "ready" or its 5 s bound
  // passes. Trusted input is then sent by the provider; select and scroll are performed here
  // by actPerform. elementFacts is the approval sidecar recorded at capture time. Nothing here
  // reads or returns an input's value, and no answer carries page text.

  const ACT_MAX_FACT_UNITS = 256;
  const ACT_MAX_DIALOG_DEPTH = 256;
  const ACT_MAX_SCROLL_DEPTH = 256;
  const ACT_MAX_OPTIONS = 4096;
  const ACT_TEXT_INPUT_TYPES = new SetCtor([
    '', 'text', 'search', 'email', 'tel', 'url', 'number', 'password',
  ]);
  const ACT_SECRET_AUTOCOMPLETE = new SetCtor(['current-password', 'new-password',
                                              'one-time-code']);
  const ACT_CHECKABLE_ROLES = new SetCtor(['checkbox', 'radio', 'switch', 'menuitemcheckbox',
                                          'menuitemradio']);
  const ACT_PENDING = '{"ok":true,"state":"pending"}';
  const ACT_GONE = '{"ok":false,"error":"gone"}';
  const ACT_NOT_ALLOWED = '{"ok":false,"error":"not_allowed"}';
  const requestFrame = win.requestAnimationFrame.bind(win);
  const isFinite = Number.isFinite;

  // The trial in progress: its id, target, the box last measured and the animation frames
  // seen since; `seen` records that input the provider sent reached the document.
  let actState = null;

  // The editing host the last rich-text type of this document was sent to (the draft receipt's live
  // binding). Never read here: the provider holds the text it submitted and asks only whether the
  // editor still renders it.
  let draftTarget = null;
  const DRAFT_MAX_NODES = 256;
  const DRAFT_MAX_UNITS = 4096;

  // The flat-tree parent across shadow boundaries (the host for a shadow root's child).
  function composedParent(node) {
    if (node.parentElement !== null) return node.parentElement;
    const root = node.parentNode;
    return root !== null && root.nodeType === 11 && root.host ? root.host : null;
  }

  function closestDialog(el) {
    let e = composedParent(el);
    for (let i = 0; e !== null && i < ACT_MAX_DIALOG_DEPTH; i++) {
      const role = explicitRole(e);
      if (role === 'dialog' || role === 'alertdialog' || (!role && isHtml(e, 'dialog'))) return e;
      e = composedParent(e);
    }
    return null;
  }

  function autocompleteTokens(el) {
    const v = el.getAttribute('autocomplete');
    return v === null ? '' : collapseLine(cutUnits(v, ACT_MAX_FACT_UNITS * 4), ACT_MAX_FACT_UNITS);
  }

  function isTextControl(el) {
    if (isHtml(el, 'textarea')) return true;
    return isHtml(el, 'input') && ACT_TEXT_INPUT_TYPES.has(inputType(el));
  }

  // A password or one-time-code field: never typed into.
  function isSecretField(el) {
    if (isHtml(el, 'input') && inputType(el) === 'password') return true;
    const tokens = autocompleteTokens(el).toLowerCase().split(' ');
    for (let i = 0; i < tokens.length; i++) {
      if (ACT_SECRET_AUTOCOMPLETE.has(tokens[i])) return true;
    }
    return false;
  }

  // Label sources and texts of the sidecar: each is read from at most ACT_MAX_FACT_READ_UNITS
  // and kept to ACT_MAX_FACT_UNITS, with whether it was kept whole.
  const ACT_MAX_FACT_READ_UNITS = 1024;
  const ACT_MAX_DIALOG_UNITS = 128;
  const ACT_MAX_FACT_PARTS = 8;
  const FACT_LIMITS = { maxNodes: 256, maxUnits: ACT_MAX_FACT_READ_UNITS,
                        maxBytes: ACT_MAX_FACT_READ_UNITS * 4 };
  const ACT_BUTTON_INPUT_TYPES = new SetCtor(['submit', 'button', 'reset', 'image']);
  const ACT_FORM_ASSOCIATED = new SetCtor(['input', 'button', 'select', 'textarea', 'output',
                                          'fieldset', 'object']);
  // Read through the prototype: a form's named controls shadow its own properties
  // (<input name=action>), in every world.
  const formActionGetter = (() => {
    try {
      return Object.getOwnPropertyDescriptor(win.HTMLFormElement.prototype, 'action').get;
    } catch (e) {
      return null;
    }
  })();
  const formMethodGetter = (() => {
    try {
      return Object.getOwnPropertyDescriptor(win.HTMLFormElement.prototype, 'method').get;
    } catch (e) {
      return null;
    }
  })();

  function factText(collapsed, complete) {
    return { text: cutUnits(collapsed, ACT_MAX_FACT_UNITS),
             whole: complete && collapsed.length <= ACT_MAX_FACT_UNITS };
  }

  // An attribute as a label source, or null when absent or blank.
  function factAttr(el, name) {
    const v = el.getAttribute(name);
    if (v === null) return null;
    const collapsed = collapseLine(cutUnits(v, ACT_MAX_FACT_READ_UNITS), ACT_MAX_FACT_READ_UNITS);
    if (!collapsed) return null;
    return factText(collapsed, v.length <= ACT_MAX_FACT_READ_UNITS);
  }

  // Rendered text under el (name rules: hidden, editable and control content excluded),
  // through open shadow roots.
  function factSubtree(el, skipEl) {
    // The name's walk of this subtree in the same capture, when it read all of it within
    // these smaller limits: the same nodes, the same text, and whole.
    const known = skipEl !== null || subtreeWalks === null ? undefined : subtreeWalks.get(el);
    if (known !== undefined && known.whole && known.units <= FACT_LIMITS.maxUnits &&
        known.bytes <= FACT_LIMITS.maxBytes)
      return factText(collapseLine(known.text, ACT_MAX_FACT_READ_UNITS), true);
    const sink = new TextSink(FACT_LIMITS.maxBytes, true);
    const st = walkText(el, FACT_LIMITS, sink, true, skipEl);
    const collapsed = collapseLine(sink.result(), ACT_MAX_FACT_READ_UNITS);
    return factText(collapsed, !st.nodeLimit && !st.textLimit && !sink.full);
  }

  // A referenced or label element's text, as referencedName reads it.
  function factReferenced(ref, skipEl) {
    if (!styleIsStored(ref)) return null;
    const c = classify(ref, true, skipEl);
    if (c === null) return null;
    if (c.kind === KIND_LABEL) return c.text ? factText(collapseLine(c.text, MAX_NAME_UNITS), true) : null;
    if (c.kind !== KIND_BLOCK || c.noDescend) return null;
    return factSubtree(ref, skipEl);
  }

  // Parts joined with a space; whole when every part was and the join fits.
  function factJoin(parts, complete) {
    const texts = [];
    let whole = complete;
    for (let i = 0; i < parts.length; i++) {
      if (parts[i] === null || !parts[i].text) continue;
      texts.push(parts[i].text);
      whole = whole && parts[i].whole;
    }
    if (texts.length === 0) return null;
    return factText(collapseLine(texts.join(' '), ACT_MAX_FACT_READ_UNITS), whole);
  }

  function factLabelledBy(el) {
    const ids = el.getAttribute('aria-labelledby');
    if (ids === null) return null;
    const root = el.getRootNode();
    const tokens = cutUnits(ids, 4096).split(/[ \t\n\f\r]+/);
    const parts = [];
    let used = 0;
    for (let i = 0; i < tokens.length; i++) {
      if (!tokens[i]) continue;
      if (used === MAX_LABELLEDBY_IDS) return factJoin(parts, false);
      used += 1;
      const ref = typeof root.getElementById === 'function' ? root.getElementById(tokens[i]) : null;
      if (ref !== null) parts.push(factReferenced(ref, null));
    }
    return factJoin(parts, ids.length <= 4096);
  }

  function factLabels(el) {
    const labels = labelsOf(el);
    if (!labels) return null;
    const parts = [];
    for (let i = 0; i < labels.length; i++) parts.push(factReferenced(labels[i], el));
    return factJoin(parts, true);
  }

  // The element's own alternative text and that of images inside it.
  function factAlt(el, tag, type) {
    const parts = [];
    if (tag === 'img' || tag === 'area' || (tag === 'input' && type === 'image'))
      parts.push(factAttr(el, 'alt'));
    const selector = 'img[alt],area[alt],input[type="image" i][alt]';
    const roots = el.shadowRoot ? [el.shadowRoot, el] : [el];
    let complete = true;
    for (let r = 0; r < roots.length; r++) {
      const inner = roots[r].querySelectorAll(selector);
      for (let i = 0; i < inner.length; i++) {
        if (parts.length === ACT_MAX_FACT_PARTS) { complete = false; break; }
        parts.push(factAttr(inner[i], 'alt'));
      }
    }
    return factJoin(parts, complete);
  }

  // The option(s) a select shows as selected.
  function factSelected(el) {
    const selected = el.selectedOptions;
    const parts = [];
    const n = selected.length < ACT_MAX_FACT_PARTS ? selected.length : ACT_MAX_FACT_PARTS;
    for (let i = 0; i < n; i++) {
      const label = String(selected[i].label);
      parts.push(factText(collapseLine(cutUnits(label, ACT_MAX_FACT_READ_UNITS),
                                       ACT_MAX_FACT_READ_UNITS),
                          label.length <= ACT_MAX_FACT_READ_UNITS));
    }
    return factJoin(parts, selected.length <= ACT_MAX_FACT_PARTS);
  }

  function inForm(el, tag, html) {
    if (html && ACT_FORM_ASSOCIATED.has(tag) && el.form) return true;
    let e = composedParent(el);
    for (let i = 0; e !== null && i < ACT_MAX_DIALOG_DEPTH; i++) {
      if (isHtml(e, 'form')) return true;
      e = composedParent(e);
    }
    return false;
  }

  // Where a link or a submit button goes, as the page resolved it. The browser process reads
  // it into a summary (same origin, first segment, sensitive, download); the URL itself goes
  // no further. '' for one over the URL bound.
  function factTarget(el, tag, type, html) {
    if (!html) return null;
    let url = null;
    let download = false;
    let method = 'get';
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) {
      url = el.href;
      download = el.hasAttribute('download');
    } else if ((tag === 'button' && type === 'submit')
               || (tag === 'input' && (type === 'submit' || type === 'image'))) {
      const form = el.form;
      if (!form) return null;
      if (el.hasAttribute('formaction')) url = el.formAction;
      else if (formActionGetter !== null) url = formActionGetter.call(form);
      else url = '';
      // The submitter's formmethod, else the form's method (the IDL values are the
      // reflected, lower-case keywords; anything unreadable counts as a POST).
      const m = el.hasAttribute('formmethod') ? el.formMethod
        : (formMethodGetter !== null ? formMethodGetter.call(form) : 'post');
      method = m === 'get' || m === 'dialog' ? m : 'post';
    } else {
      return null;
    }
    if (typeof url !== 'string' || url.length > MAX_URL_UNITS) url = '';
    return { url: url, download: download, method: method };
  }

  // The approval sidecar of one kept control (never in the observation): its type and
  // autocomplete attributes, its rendered text (never a value: form controls, editing hosts
  // and custom editor roles contribute none), every label source, the enclosing dialog's name,
  // a select's selected option, what kind of control it is, whether it is in a form, and its
  // navigation target. `quiet` controls (inside hidden, aria-hidden or inert subtrees) get no
  // text.
  function elementFacts(el, role, quiet) {
    const html = el.namespaceURI === HTML_NS;
    const tag = el.localName;
    const control = html && (tag === 'input' || tag === 'select' || tag === 'textarea');
    const type = html && (tag === 'input' || tag === 'button') ? inputType(el) : '';
    let text = { text: '', whole: true };
    const labels = [];
    let option = { text: '', whole: true };
    let dialog = '';
    if (!quiet) {
      if (!control && el.isContentEditable !== true && !EDITABLE_ROLES.has(role))
        text = factSubtree(el, null);
      const sources = [
        ['aria_label', factAttr(el, 'aria-label')],
        ['title', factAttr(el, 'title')],
        ['placeholder', factAttr(el, 'placeholder') || factAttr(el, 'aria-placeholder')],
        ['label', factLabels(el)],
        ['labelled_by', factLabelledBy(el)],
        ['alt', html ? factAlt(el, tag, type) : null],
        ['value', html && (tag === 'button' || (tag === 'input' && ACT_BUTTON_INPUT_TYPES.has(type)))
          ? factAttr(el, 'value') : null],
      ];
      for (let i = 0; i < sources.length; i++) {
        const found = sources[i][1];
        if (found !== null && found.text)
          labels.push({ source: sources[i][0], text: found.text, whole: found.whole });
      }
      if (html && tag === 'select') option = factSelected(el) || option;
      const d = closestDialog(el);
      if (d !== null) dialog = cutUnits(nameOf(d, 'dialog'), ACT_MAX_DIALOG_UNITS);
    }
    return {
      // A button's type too: a click on a type=button button sends no form by itself.
      input_type: html && (tag === 'input' || tag === 'button') ? cutUnits(inputType(el), 64) : '',
      autocomplete: autocompleteTokens(el),
      text: text.text,
      text_whole: text.whole,
      dialog: dialog,
      labels: labels,
      option: option.text,
      option_whole: option.whole,
      control: control ? tag : '',
      editable: el.isContentEditable === true,
      in_form: inForm(el, tag, html),
      target: factTarget(el, tag, type, html),
    };
  }

  function detailsContext(el) {
    const parent = el.parentElement;
    return parent === null ? null : parent.closest('details,summary');
  }

  function isChecked(el) {
    if (isHtml(el, 'input') && (inputType(el) === 'checkbox' || inputType(el) === 'radio'))
      return el.checked === true;
    return attrIs(el, 'aria-checked', 'true');
  }

  // The option of a <select> by value, then by label with white space collapsed; null
  // when there is none or it is disabled.
  function findOption(select, wanted) {
    const options = select.options;
    const n = options.length < ACT_MAX_OPTIONS ? options.length : ACT_MAX_OPTIONS;
    for (let i = 0; i < n; i++) {
      if (options[i].value === wanted) return options[i].disabled ? null : options[i];
    }
    const collapsed = collapseLine(wanted, MAX_NAME_UNITS);
    for (let i = 0; i < n; i++) {
      if (collapseLine(cutUnits(String(options[i].label), MAX_NAME_UNITS * 4), MAX_NAME_UNITS)
          === collapsed)
        return options[i].disabled ? null : options[i];
    }
    return null;
  }

  function inViewport(r) {
    return r.left >= 0 && r.top >= 0 && r.right <= win.innerWidth && r.bottom <= win.innerHeight;
  }

  function sameBox(a, b) {
    return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  }

  // Whether the hit-test target at (x, y), descending through open shadow roots, is el or
  // inside it (in the flat tree).
  function hitsElement(el, x, y) {
    let hit = doc.elementFromPoint(x, y);
    for (let i = 0; hit !== null && hit.shadowRoot && i < ACT_MAX_DIALOG_DEPTH; i++) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (inner === null || inner === hit) break;
      hit = inner;
    }
    for (let i = 0; hit !== null && i < ACT_MAX_DIALOG_DEPTH * 4; i++) {
      if (hit === el) return true;
      hit = composedParent(hit);
    }
    return false;
  }

  function actTarget(opts) {
    if (current === null || current.id !== opts.current) return null;
    if (typeof opts.ref !== 'string' || !current.handles.has(opts.ref)) return null;
    return current.handles.get(opts.ref);
  }

  // Trusted input events mark the trial in progress as seen: the page cannot make trusted
  // events, so only input the provider sent (or, for type, the editing it caused) counts.
  // Only the input's last event counts: a release (the click, and what its handlers do, run
  // in the same task), a key's release, an edit. A press alone is not the act: settling begun
  // between press and release would capture the page before the click's handlers ran.
  try {
    const markSeen = (e) => { if (actState !== null && e.isTrusted === true) actState.seen = true; };
    const seenKinds = ['mouseup', 'click', 'keyup', 'beforeinput', 'input'];
    for (let i = 0; i < seenKinds.length; i++) win.addEventListener(seenKinds[i], markSeen, true);
  } catch (e) {
    // No evidence: the provider's bound ends the wait with outcome_unknown.
  }

  // opts: {current, ref, kind, trial, option?}. One step of the actionability trial. Answers
  // {state:"pending"} (not yet actionable: try again until the bound), {state:"ready", x, y}
  // (the centre in viewport CSS pixels; for type and press the target is focused, for type
  // its content selected, and the input watcher armed), or an error: "page_changed" (not
  // this document's committed capture, or the target's role or accessible name is no longer
  // the captured one), "gone" (detached or not a target of this kind), "not_allowed" (a
  // password or one-time-code field for type).
  function actTrial(opts) {
    if (opts === null || typeof opts !== 'object' || typeof opts.trial !== 'string') return FAILED;
    if (current === null || current.id !== opts.current) return PAGE_CHANGED;
    const el = actTarget(opts);
    if (el === null) return PAGE_CHANGED;
    if (el.isConnected !== true) return ACT_GONE;
    // The same node with another role or name is another target than the one observed and
    // approved (a relabelled payee, a button turned into another): never act on it.
    const identity = current.identities.get(opts.ref);
    if (identity) {
      const role = roleOf(el);
      if (role !== identity.role || nameOf(el, role) !== identity.name) return PAGE_CHANGED;
    }
    const kind = opts.kind;
    const editable = isEditingHost(el);
    if (kind === 'type') {
      if (isSecretField(el)) return ACT_NOT_ALLOWED;
      if (!isTextControl(el) && !editable) return ACT_GONE;
    } else if (kind === 'select') {
      if (!isHtml(el, 'select')) return ACT_GONE;
    } else if (kind === 'check') {
      if (!ACT_CHECKABLE_ROLES.has(roleOf(el))) return ACT_GONE;
    }
    if (actState === null || actState.id !== opts.trial || actState.el !== el) {
      actState = { id: opts.trial, el: el, box: null, frames: 0, seen: false };
    }
    const state = actState;
    const range = doc.createRange();
    const visible = isVisible(el, detailsContext(el), range);
    range.detach();
    if (!visible) { state.box = null; return ACT_PENDING; }
    if (kind === 'scroll') return stringify({ ok: true, state: 'ready', x: 0, y: 0 });
    if (isDisabled(el) || el.closest('[inert]') !== null) { state.box = null; return ACT_PENDING; }
    if (kind === 'type' && isTextControl(el) && el.readOnly === true) {
      state.box = null;
      return ACT_PENDING;
    }
    if (kind === 'select' && (typeof opts.option !== 'string' || findOption(el, opts.option) === null)) {
      return ACT_PENDING;
    }
    let r = el.getBoundingClientRect();
    if (!inViewport(r)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      r = el.getBoundingClientRect();
    }
    // Stable: the same box across two animation frames.
    if (state.box === null || !sameBox(state.box, r)) {
      state.box = { x: r.x, y: r.y, width: r.width, height: r.height };
      state.frames = 0;
      const frame = () => {
        if (actState !== state) return;
        state.frames += 1;
        if (state.frames < 2) requestFrame(frame);
      };
      requestFrame(frame);
      return ACT_PENDING;
    }
    if (state.frames < 2) return ACT_PENDING;
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (!isFinite(x) || !isFinite(y) || x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight)
      return ACT_PENDING;
    if ((kind === 'click' || kind === 'check') && !hitsElement(el, x, y)) return ACT_PENDING;
    if (kind === 'check') {
      if (typeof opts.checked !== 'boolean') return FAILED;
      if (isChecked(el) === opts.checked)
        return stringify({ ok: true, state: 'ready', x: x, y: y, unchanged: true });
    }
    if (kind === 'type' || kind === 'press') {
      el.focus({ preventScroll: true });
      if (el.getRootNode().activeElement !== el) return ACT_PENDING;
    }
    let empty = false;
    if (kind === 'type') {
      const sel = win.getSelection();
      if (isTextControl(el)) {
        el.select();
        empty = el.selectionStart === el.selectionEnd;
      } else {
        draftTarget = el; // this editor's receipt, if the provider keeps one
        const all = doc.createRange();
        all.selectNodeContents(el);
        empty = all.collapsed;
        sel.removeAllRanges();
        sel.addRange(all);
      }
    }
    state.seen = false;
    const ready = { ok: true, state: 'ready', x: x, y: y, empty: empty };
    // An act under a dispatch constraint: the live element's facts, judged again before input.
    if (opts.facts === true) ready.facts = elementFacts(el, roleOf(el), false);
    if (kind === 'type' && !isTextControl(el)) ready.editable = true;
    return stringify(ready);
  }

  // Whitespace as rendered text compares: runs of spaces collapse, each line is trimmed, empty
  // lines go; line (block) and tab (table-cell) boundaries stay.
  function normalizeDraft(text) {
    const lines = text.replace(/\r\n?/g, '\n').split('\n');
    const out = [];
    for (let i = 0; i < lines.length; i++) {
      const cells = lines[i].split('\t');
      for (let j = 0; j < cells.length; j++) cells[j] = cells[j].replace(/[ \f\v\u00a0]+/g, ' ').trim();
      const line = cells.join('\t').replace(/^\t+|\t+$/g, '');
      if (line !== '') out.push(line);
    }
    return out.join('\n');
  }

  // The editor's text as rendered, built here from its text nodes (never a subtree text API):
  // block boxes and <br> break lines, table cells are tab-separated, display:none subtrees
  // are skipped, and outside pre-formatted text a source line break is a space. null past 256
  // nodes or 4,096 text units, or with a shadow root (slotted content is not compared).
  function draftText(el) {
    const parts = [];
    const BLOCK_END = {};
    const stack = [];
    for (let c = el.lastChild; c !== null; c = c.previousSibling) stack.push(c);
    let nodes = 0;
    let units = 0;
    while (stack.length !== 0) {
      const n = stack.pop();
      if (n === BLOCK_END) { parts.push('\n'); continue; }
      if (++nodes > DRAFT_MAX_NODES) return null;
      if (n.nodeType === 3) {
        units += n.data.length;
        if (units > DRAFT_MAX_UNITS) return null;
        const parent = n.parentElement;
        const ws = parent === null ? 'normal' : getStyle(parent).whiteSpace;
        parts.push(ws.startsWith('pre') || ws === 'break-spaces' ? n.data
                                                                 : n.data.replace(/[\n\r\t]/g, ' '));
        continue;
      }
      if (n.nodeType !== 1) continue;
      if (n.shadowRoot) return null;
      const display = getStyle(n).display;
      if (display === 'none') continue;
      if (isHtml(n, 'br')) { parts.push('\n'); continue; }
      if (display === 'table-cell') {
        parts.push('\t');
      } else if (display !== 'contents' && !display.startsWith('inline')) {
        parts.push('\n');
        stack.push(BLOCK_END);
      }
      for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
    }
    return parts.join('');
  }

  // The draft receipt's check: "confirmed" when the editor the last rich-text type went to is
  // still in this document, visible, not a credential field, at most 256 nodes and 4,096
  // text units, and renders exactly `expected` (whitespace normalized); "outside" when a
  // focused read's region does not contain it; otherwise "invalid". Only the verdict leaves.
  function draftCheck(expected, root, range) {
    if (typeof expected !== 'string' || expected.length > 2 * DRAFT_MAX_UNITS) return 'invalid';
    const el = draftTarget;
    if (el === null || el.isConnected !== true || !isEditingHost(el) || isSecretField(el)
        || el.shadowRoot)
      return 'invalid';
    if (root !== null) {
      let e = el;
      while (e !== null && e !== root) e = composedParent(e);
      if (e === null) return 'outside';
    }
    if (!isVisible(el, detailsContext(el), range)) return 'invalid';
    const rendered = draftText(el);
    if (rendered === null) return 'invalid';
    return normalizeDraft(rendered) === normalizeDraft(expected) ? 'confirmed' : 'invalid';
  }

  // Whether input the provider sent after the "ready" of trial `id` reached this document.
  // A document that is not the trial's (a navigation replaced it) answers replaced: true.
  function actSeen(opts) {
    if (opts === null || typeof opts !== 'object') return FAILED;
    if (actState === null || actState.id !== opts.trial) return '{"ok":true,"replaced":true}';
    return actState.seen ? '{"ok":true,"seen":true}' : '{"ok":true,"seen":false}';
  }

  // The nearest scroll container of el that can scroll vertically (itself included), or
  // null for the document scroller.
  function scrollContainer(el) {
    const top = doc.scrollingElement;
    let e = el;
    for (let i = 0; e !== null && i < ACT_MAX_SCROLL_DEPTH; i++) {
      if (e === top || e === doc.body || e === doc.documentElement) return null;
      if (e.scrollHeight > e.clientHeight) {
        const overflow = getStyle(e).overflowY;
        if (overflow === 'auto' || overflow === 'scroll' || overflow === 'overlay') return e;
      }
      e = composedParent(e);
    }
    return null;
  }

  // opts: {current, ref, trial, kind: "select", option} or {..., kind: "scroll", delta}.
  // Performs the action in this world (input and change events for select) and answers
  // {ok:true} or, for scroll, {ok:true, scrolled: measured CSS pixels}.
  function actPerform(opts) {
    if (opts === null || typeof opts !== 'object') return FAILED;
    const el = actTarget(opts);
    if (el === null || el.isConnected !== true || actState === null || actState.id !== opts.trial)
      return FAILED;
    if (opts.kind === 'select') {
      if (!isHtml(el, 'select') || typeof opts.option !== 'string') return FAILED;
      const option = findOption(el, opts.option);
      if (option === null) return FAILED;
      if (el.multiple) {
        const options = el.options;
        for (let i = 0; i < options.length && i < ACT_MAX_OPTIONS; i++) options[i].selected = false;
      }
      option.selected = true;
      el.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new win.Event('change', { bubbles: true }));
      return OK;
    }
    if (opts.kind === 'scroll') {
      const delta = opts.delta;
      if (typeof delta !== 'number' || !isFinite(delta)) return FAILED;
      const box = scrollContainer(el);
      if (box === null) {
        const before = win.scrollY;
        win.scrollBy({ top: delta, left: 0, behavior: 'instant' });
        return stringify({ ok: true, scrolled: Math.round(win.scrollY - before) });
      }
      const before = box.scrollTop;
      box.scrollBy({ top: delta, left: 0, behavior: 'instant' });
      return stringify({ ok: true, scrolled: Math.round(box.scrollTop - before) });
    }
    return FAILED;
  }
