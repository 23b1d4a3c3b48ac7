  // ---------------------------------------------------------------- regions (regions.js)
  //
  // Spliced into collector.js. Bounded semantic page structure.
  //
  // Visible dialogs, alerts, status messages, forms and headings, in that priority, then the
  // main and section regions a focused read can select. One pre-order scan of main-document
  // elements (no shadow roots, no frames), at most MAX_REGION_SCAN_NODES elements; at most
  // MAX_REGIONS whole records; each summary from at most SUMMARY_LIMITS.maxNodes nodes and
  // MAX_SUMMARY_UNITS UTF-16 units, through the readable-text walk (so hidden, editable and
  // form-control content contributes nothing, and shadow roots are outside the scope). Region handles are evidence: they are never
  // action targets or continuation anchors.

  const MAX_REGION_SCAN_NODES = 8192;
  const MAX_REGIONS = 32;
  const MAX_SUMMARY_UNITS = 512;
  const SUMMARY_LIMITS = { maxNodes: 256, maxUnits: 4096, lightOnly: true };
  const SUMMARY_BYTES = 16384;
  const REGION_KINDS = ['dialog', 'alert', 'status', 'form', 'heading', 'main', 'section'];
  const REGION_TAG_KIND = new MapCtor([
    ['dialog', 'dialog'], ['output', 'status'], ['form', 'form'], ['h1', 'heading'],
    ['h2', 'heading'], ['h3', 'heading'], ['h4', 'heading'], ['h5', 'heading'],
    ['h6', 'heading'], ['main', 'main'], ['section', 'section'],
  ]);
  const REGION_ROLE_KIND = new MapCtor([
    ['dialog', 'dialog'], ['alertdialog', 'dialog'], ['alert', 'alert'], ['status', 'status'],
    ['log', 'status'], ['form', 'form'], ['search', 'form'], ['heading', 'heading'],
    ['main', 'main'], ['region', 'section'],
  ]);
  // Subtrees the scan never enters: no rendered region can be inside them.
  const REGION_SKIP_TAGS = new SetCtor([
    'script', 'style', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'object',
    'embed', 'canvas', 'video', 'audio', 'select', 'textarea', 'head', 'svg', 'math',
  ]);

  // The region kind of an element, or null. An explicit role decides; only without one (or
  // with a presentational one on a non-landmark) does the tag.
  function regionKind(el) {
    const role = explicitRole(el);
    if (role) {
      const kind = REGION_ROLE_KIND.get(role);
      if (kind !== undefined) return kind;
      if (role !== 'generic') return null;
    }
    if (el.namespaceURI !== HTML_NS) return null;
    const kind = REGION_TAG_KIND.get(el.localName);
    return kind === undefined ? null : kind;
  }

  function headingLevel(el) {
    const v = el.getAttribute('aria-level');
    if (v !== null && /^\s*[1-9]\s*$/.test(cutUnits(v, 16))) return Number(v.trim());
    const tag = el.localName;
    if (el.namespaceURI === HTML_NS && /^h[1-6]$/.test(tag)) return Number(tag.charAt(1));
    return 2; // role=heading without a level: ARIA's default
  }

  // The summary of a region: its readable text on one line, at most MAX_SUMMARY_UNITS.
  function regionSummary(el) {
    const sink = new TextSink(SUMMARY_BYTES, false);
    const st = walkText(el, SUMMARY_LIMITS, sink, false, null);
    const line = collapseLine(sink.result(), MAX_SUMMARY_UNITS * 2);
    const cut = cutUnits(line, MAX_SUMMARY_UNITS);
    return { text: cut, truncated: cut.length < line.length || st.nodeLimit || st.textLimit ||
                                   sink.full };
  }

  // One pre-order element scan. `forced`: an element that must be retained first (the focused
  // region), counted once. Returns {found: [{el, kind}] in retained order, scanned,
  // exhausted, omitted}.
  function scanRegions(forced, range) {
    const buckets = new MapCtor();
    for (let i = 0; i < REGION_KINDS.length; i++) buckets.set(REGION_KINDS[i], []);
    let scanned = 0;
    let exhausted = false;
    let total = 0;
    let el = doc.documentElement;
    while (el !== null) {
      if (scanned >= MAX_REGION_SCAN_NODES) { exhausted = true; break; }
      scanned += 1;
      let descend = true;
      if (el.hasAttribute('hidden') || el.hasAttribute('inert')
          || attrIs(el, 'aria-hidden', 'true')
          || (el.namespaceURI === HTML_NS && REGION_SKIP_TAGS.has(el.localName))
          || el.namespaceURI === SVG_NS || el.namespaceURI === MATHML_NS) {
        descend = false;
      } else {
        const kind = regionKind(el);
        if (kind !== null && el !== forced && isVisible(el, null, range)) {
          buckets.get(kind).push(el);
          total += 1;
        }
      }
      // Next element in pre-order, never leaving the document element.
      let next = descend ? el.firstElementChild : null;
      while (next === null && el !== null) {
        next = el.nextElementSibling;
        if (next === null) {
          el = el.parentElement;
          if (el === null) break;
        }
      }
      el = next;
    }
    const found = [];
    if (forced !== null) found.push({ el: forced, kind: regionKind(forced) || 'section' });
    for (let k = 0; k < REGION_KINDS.length; k++) {
      const bucket = buckets.get(REGION_KINDS[k]);
      for (let i = 0; i < bucket.length && found.length < MAX_REGIONS; i++)
        found.push({ el: bucket[i], kind: REGION_KINDS[k] });
    }
    const retained = found.length - (forced !== null ? 1 : 0);
    return { found: found, scanned: scanned, exhausted: exhausted, omitted: total - retained };
  }

  // The region records of a capture without their refs: {found: [{el, kind}], records,
  // coverage}. A continuation may reuse them while the page did not change (collector.js).
  function scanRegionRecords(forced, range) {
    const scan = scanRegions(forced, range);
    const records = [];
    for (let i = 0; i < scan.found.length; i++) {
      const el = scan.found[i].el;
      const kind = scan.found[i].kind;
      const record = { kind: kind };
      if (kind === 'heading') {
        record.name = subtreeName(el, null);
        record.level = headingLevel(el);
        record.summary = '';
        record.summary_truncated = false;
      } else {
        record.name = nameOf(el, kind === 'section' ? 'region' : kind);
        const summary = regionSummary(el);
        record.summary = summary.text;
        record.summary_truncated = summary.truncated;
      }
      records.push(record);
    }
    return {
      found: scan.found,
      records: records,
      coverage: {
        version: 1,
        scope: 'main_document',
        scanned_nodes: scan.scanned,
        scan_exhausted: scan.exhausted,
        omitted_regions: scan.omitted,
      },
    };
  }

  // Region records and their handles for a capture. Refs are `<prefix>.g<i>`, disjoint from
  // element refs (`<prefix>.<i>`).
  function regionsWithRefs(scan, refPrefix) {
    const records = [];
    const handles = new MapCtor();
    for (let i = 0; i < scan.records.length; i++) {
      const ref = refPrefix + '.g' + i;
      const r = scan.records[i];
      const record = { ref: ref, kind: r.kind, name: r.name };
      if (r.level !== undefined) record.level = r.level;
      record.summary = r.summary;
      record.summary_truncated = r.summary_truncated;
      records.push(record);
      handles.set(ref, scan.found[i].el);
    }
    return { records: records, handles: handles, coverage: scan.coverage };
  }
