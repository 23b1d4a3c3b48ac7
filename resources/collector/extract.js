  // ---------------------------------------------------------------- extraction (extract.js)
  //
  // Spliced into collector.js. Deterministic collection extraction: the index-th visible table,
  // list or form of the main document, read into at most `limit` rows of bounded cell text. Typing,
  // row validity and the 64 KiB ceiling are the core's (core/domain/observation/Extraction.cpp); this only
  // finds and reads. Discovery never enters frames or shadow roots; cells follow the readable-text
  // rules (hidden, ARIA-hidden, inert, editable and form-control content supply nothing), and forms
  // expose a control's label, role and state only, never an entered or selected value.

  const EXTRACT_MAX_COLLECTION_NODES = 8192; // element visits to find the collection
  const EXTRACT_MAX_ROW_NODES = 4096;        // element visits to find rows and cells
  const EXTRACT_CELL_UNITS = 256;            // UTF-16 units kept per cell
  const EXTRACT_CELL_LIMITS = { maxNodes: 256, maxUnits: EXTRACT_CELL_UNITS };
  const EXTRACT_MAX_INDEX = 15;
  const EXTRACT_MAX_COLUMNS = 8;
  const EXTRACT_MAX_LIMIT = 50;
  const EXTRACT_OPEN_SPAN = 65535; // rowspan=0: to the end of the table

  // Form controls: native controls and custom widgets. A row each; links are not controls.
  const FORM_CONTROL_SELECTOR = [
    'input:not([type="hidden" i])', 'select', 'textarea', 'button', '[contenteditable=""]',
    '[contenteditable="true" i]', '[contenteditable="plaintext-only" i]',
  ].concat(['button', 'checkbox', 'radio', 'switch', 'combobox', 'textbox', 'searchbox',
            'slider', 'spinbutton'].map((r) => '[role~="' + r + '" i]')).join(',');

  function validExtractOptions(x) {
    return x !== null && typeof x === 'object'
      && (x.kind === 'table' || x.kind === 'list' || x.kind === 'form')
      && typeof x.index === 'number' && x.index % 1 === 0 && x.index >= 0
      && x.index <= EXTRACT_MAX_INDEX
      && typeof x.columns === 'number' && x.columns % 1 === 0 && x.columns >= 1
      && x.columns <= EXTRACT_MAX_COLUMNS
      && typeof x.limit === 'number' && x.limit % 1 === 0 && x.limit >= 1
      && x.limit <= EXTRACT_MAX_LIMIT;
  }

  // Decided in capture() before anything is read: malformed options (or a continuation at the
  // same time) are FAILED; a committed capture that is not `current` (another document, a
  // reload, a failed capture) is PAGE_CHANGED and changes nothing. null: go ahead.
  function extractRefusal(opts) {
    if (opts.after !== undefined || opts.start !== undefined || opts.focus !== undefined)
      return FAILED;
    if (!validExtractOptions(opts.extract)) return FAILED;
    if (!validId(opts.current, MAX_CAPTURE_ID_UNITS)) return FAILED;
    if (current === null || current.id !== opts.current) return PAGE_CHANGED;
    return null;
  }

  // 'table' (<table>, role table/grid), 'list' (<ul>, <ol>, role list), 'form' (<form>, role
  // form) or ''. A valid explicit role always wins over the element's own kind.
  function collectionKindOf(el) {
    const role = explicitRole(el);
    if (role) {
      if (role === 'table' || role === 'grid') return 'table';
      if (role === 'list') return 'list';
      if (role === 'form') return 'form';
      return '';
    }
    if (el.namespaceURI !== HTML_NS) return '';
    const tag = el.localName;
    if (tag === 'table') return 'table';
    if (tag === 'ul' || tag === 'ol') return 'list';
    if (tag === 'form') return 'form';
    return '';
  }

  function quietElement(el) {
    return el.hasAttribute('hidden') || el.hasAttribute('inert')
      || attrIs(el, 'aria-hidden', 'true');
  }

  // Pre-order element walk of the main document (light tree only), at most 8,192 visits.
  // Hidden, ARIA-hidden and inert subtrees hold no visible collection and are skipped.
  function findCollection(kind, index, range) {
    const out = { el: null, nodes: 0, limit: false };
    const top = doc.documentElement;
    if (top === null) return out;
    let seen = 0;
    const frames = [{ next: top, ctx: null }];
    while (frames.length !== 0) {
      const f = frames[frames.length - 1];
      const el = f.next;
      if (el === null) { frames.pop(); continue; }
      f.next = el.nextElementSibling;
      if (out.nodes >= EXTRACT_MAX_COLLECTION_NODES) { out.limit = true; break; }
      out.nodes += 1;
      if (quietElement(el)) continue;
      if (collectionKindOf(el) === kind && isVisible(el, f.ctx, range)) {
        if (seen === index) { out.el = el; return out; }
        seen += 1;
      }
      const child = el.firstElementChild;
      if (child !== null) frames.push({ next: child, ctx: isDetailsOrSummary(el) ? el : f.ctx });
    }
    return out;
  }

  // A cell's rendered text: collapsed to one line, at most 256 nodes and 256 UTF-16 units
  // inspected and kept, never ending inside a surrogate pair. `truncated`: a bound stopped it.
  function cellText(el) {
    const c = classify(el, false, null);
    if (c === null || c.kind !== KIND_BLOCK || c.noDescend) return { text: '', truncated: false };
    const sink = new TextSink(EXTRACT_CELL_UNITS * 4, true);
    const st = walkText(el, EXTRACT_CELL_LIMITS, sink, false, null);
    let text = sink.result();
    let truncated = st.nodeLimit || st.textLimit || sink.full;
    if (text.length > EXTRACT_CELL_UNITS) {
      text = cutUnits(text, EXTRACT_CELL_UNITS);
      truncated = true;
    }
    return { text: text, truncated: truncated };
  }

  // Raw cells by position: `elements` are the row's cells in order; missing positions null.
  function readCells(elements, columns) {
    const cells = [];
    for (let i = 0; i < columns; i++) cells.push(i < elements.length ? cellText(elements[i]) : null);
    return cells;
  }

  function isTableRow(el) {
    const role = explicitRole(el);
    if (role) return role === 'row';
    return isHtml(el, 'tr');
  }

  // 1: a data cell (td, cell, gridcell, rowheader), 2: a column header (th, columnheader),
  // 0: not a cell.
  function tableCellKind(el) {
    const role = explicitRole(el);
    if (role) {
      if (role === 'cell' || role === 'gridcell' || role === 'rowheader') return 1;
      return role === 'columnheader' ? 2 : 0;
    }
    if (isHtml(el, 'td')) return 1;
    return isHtml(el, 'th') ? 2 : 0;
  }

  function ariaSpan(el, name) {
    const v = el.getAttribute(name);
    if (v === null || v.length > 8) return 1;
    const n = parseInt(v, 10);
    if (n === 0) return EXTRACT_OPEN_SPAN;
    return n > 1 ? n : 1;
  }

  function cellSpan(el) {
    if (isHtml(el, 'td') || isHtml(el, 'th')) {
      const rows = el.rowSpan === 0 ? EXTRACT_OPEN_SPAN : el.rowSpan;
      return { cols: el.colSpan, rows: rows };
    }
    return { cols: ariaSpan(el, 'aria-colspan'), rows: ariaSpan(el, 'aria-rowspan') };
  }

  // Row discovery state shared by the three kinds.
  function RowScan(limit, columns) {
    this.nodes = 0;
    this.limit = false;
    this.seen = 0;
    this.rows = [];
    this.maxRows = limit;
    this.columns = columns;
  }
  RowScan.prototype.visit = function () {
    if (this.nodes >= EXTRACT_MAX_ROW_NODES) { this.limit = true; return false; }
    this.nodes += 1;
    return true;
  };
  // Counts one visible row; true when its cells are to be read (within the limit).
  RowScan.prototype.take = function () {
    this.seen += 1;
    return this.seen <= this.maxRows;
  };

  // Table rows: every visible body row of this table (not of a nested one), header rows
  // excluded: a row inside <thead>, a row of column headers only, and a row whose cell texts
  // repeat such a header row's (the header a <tfoot> or a long <tbody> repeats, even with a
  // select-all check box in a data cell). Cells match columns by position among the row's
  // rendered cells. A row with a colspan/rowspan > 1 cell, or covered by an earlier row's
  // rowspan, is reported as spanning and not read.
  function rowSignature(cells) {
    const texts = [];
    for (let i = 0; i < cells.length; i++) texts.push(cellText(cells[i]).text);
    return texts.join('\u0000');
  }

  function scanTable(table, scan, range) {
    let spanRemaining = 0;
    const headers = new Set(); // the cell texts of this table's header rows, at most 16
    const frames = [{ next: table.firstElementChild, head: false }];
    while (frames.length !== 0) {
      const f = frames[frames.length - 1];
      const el = f.next;
      if (el === null) { frames.pop(); continue; }
      f.next = el.nextElementSibling;
      if (!scan.visit()) return;
      if (quietElement(el) || collectionKindOf(el) === 'table') continue;
      if (!isTableRow(el)) {
        const child = el.firstElementChild;
        if (child !== null) frames.push({ next: child, head: f.head || isHtml(el, 'thead') });
        continue;
      }
      const cells = [];
      let anyCell = false;
      let headerOnly = true;
      let spanning = false;
      let rowSpan = 1;
      for (let c = el.firstElementChild; c !== null; c = c.nextElementSibling) {
        if (!scan.visit()) return;
        const kind = tableCellKind(c);
        if (kind === 0) continue;
        anyCell = true;
        if (kind === 1) headerOnly = false;
        if (c.getClientRects().length === 0) continue; // not rendered: takes no position
        const span = cellSpan(c);
        if (span.cols > 1 || span.rows > 1) spanning = true;
        if (span.rows > rowSpan) rowSpan = span.rows;
        cells.push(c);
      }
      if (!anyCell) continue;
      if (f.head || headerOnly) {
        if (cells.length !== 0 && headers.size < 16) headers.add(rowSignature(cells));
        continue;
      }
      if (!isVisible(el, null, range)) continue;
      if (headers.size !== 0 && cells.length !== 0 && headers.has(rowSignature(cells))) continue;
      if (spanRemaining > 0) { spanning = true; spanRemaining -= 1; }
      if (rowSpan - 1 > spanRemaining) spanRemaining = rowSpan - 1;
      if (!scan.take()) continue;
      scan.rows.push(spanning ? { spanning: true, cells: [] }
                              : { spanning: false, cells: readCells(cells, scan.columns) });
    }
  }

  // List items: the list's own visible items (li, role listitem). An item's whole rendered
  // text is column 0; other columns have no cell.
  function scanList(list, scan, range) {
    for (let el = list.firstElementChild; el !== null; el = el.nextElementSibling) {
      if (!scan.visit()) return;
      const role = explicitRole(el);
      const item = role ? role === 'listitem' : isHtml(el, 'li');
      if (!item || quietElement(el) || !isVisible(el, null, range)) continue;
      if (scan.take()) scan.rows.push({ spanning: false, cells: readCells([el], scan.columns) });
    }
  }

  function stateCell(value) {
    return value === null ? null : { text: String(value), truncated: false };
  }

  // Form controls: one row per visible control of this form (not of a nested one), with the
  // cells label, role, disabled, checked, required (checked has no cell when the control is
  // not checkable). The label is the accessible name, which never reads a value.
  function scanForm(form, scan, range) {
    const frames = [{ next: form.firstElementChild, ctx: null }];
    while (frames.length !== 0) {
      const f = frames[frames.length - 1];
      const el = f.next;
      if (el === null) { frames.pop(); continue; }
      f.next = el.nextElementSibling;
      if (!scan.visit()) return;
      if (quietElement(el) || collectionKindOf(el) === 'form') continue;
      if (el.matches(FORM_CONTROL_SELECTOR) && isVisible(el, f.ctx, range)) {
        if (scan.take()) {
          const role = roleOf(el);
          const name = nameOf(el, role);
          const state = stateOf(el, role);
          const cells = [
            { text: cutUnits(name, EXTRACT_CELL_UNITS), truncated: name.length > EXTRACT_CELL_UNITS },
            stateCell(role), stateCell(state.disabled), stateCell(state.checked),
            stateCell(state.required),
          ];
          const row = [];
          for (let i = 0; i < scan.columns; i++) row.push(i < cells.length ? cells[i] : null);
          scan.rows.push({ spanning: false, cells: row });
        }
      }
      const child = el.firstElementChild;
      if (child !== null) frames.push({ next: child, ctx: isDetailsOrSummary(el) ? el : f.ctx });
    }
  }

  // x: options already checked by extractRefusal. The raw answer the core types
  // (Extraction::fromCollector).
  function extractCollection(x) {
    const range = doc.createRange();
    const found = findCollection(x.kind, x.index, range);
    const scan = new RowScan(x.limit, x.columns);
    if (found.el !== null) {
      if (x.kind === 'table') scanTable(found.el, scan, range);
      else if (x.kind === 'list') scanList(found.el, scan, range);
      else scanForm(found.el, scan, range);
    }
    range.detach();
    return {
      found: found.el !== null,
      scanned_nodes: found.nodes,
      scan_limit_reached: found.limit,
      row_scanned_nodes: scan.nodes,
      row_scan_limit_reached: scan.limit,
      rows_seen: scan.seen,
      rows: scan.rows,
    };
  }

