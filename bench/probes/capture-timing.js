// Profiling probe for veetbot-bench-observe --probe (docs/benchmark.md): runs in the
// collector's isolated world after the measurements and times the collector's capture()
// inside the page, so the in-page share of an observe() can be told apart from the round trip,
// parsing and validation around it. It discards its own captures, which also ends the
// committed revision; that is why it runs last.
(function () {
  var v = globalThis.__veetbot;
  if (!v) return '{"ok":false,"error":"collector_missing"}';
  var samples = [];
  var chars = 0;
  for (var i = 0; i < 10; i++) {
    var id = 'bench-probe-' + i;
    var t = performance.now();
    var out = v.capture({ captureId: id, refPrefix: 'probe' + i });
    samples.push(performance.now() - t);
    chars = out.length;
    v.discard(id);
  }
  samples.sort(function (a, b) { return a - b; });
  return JSON.stringify({
    ok: true,
    capture_in_page_median_ms: Math.round(((samples[4] + samples[5]) / 2) * 100) / 100,
    capture_in_page_min_ms: Math.round(samples[0] * 100) / 100,
    capture_json_utf16_units: chars,
  });
})()
