// Combines the sides' JSON (written by scripts/bench.sh into its work directory) into one
// comparison: each engine of ours (veetbot-bench-observe --engine) against Playwright, measured
// in the same run. Prints the table, writes the combined result file (engines.<name>.* and
// playwright.*), and prints a README snippet only when the machine was quiet (the 1-minute
// load average before the runs at most the CPU count).
//
//   node bench/report.mjs --work DIR --cold-runs N --rounds R --engines chromium,qtwebengine
//        [--build-type T] --out bench/results/latest.json

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const work = args.work;
const coldRuns = Number(args['cold-runs'] || 0);
const rounds = Number(args.rounds || 1);
const engineNames = (args.engines || 'qtwebengine').split(',').filter(Boolean);
const read = (name) => JSON.parse(readFileSync(join(work, name), 'utf8'));

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return null;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
const round = (v, digits = 2) => (v === null || v === undefined ? null
                                   : Math.round(v * 10 ** digits) / 10 ** digits);

// All rounds' samples pooled: median and nearest-rank p95, as every side computes them.
function pooled(summaries) {
  const samples = summaries.flatMap((s) => s.samples_sorted_ms).sort((a, b) => a - b);
  const n = samples.length;
  return { n, median_ms: round(median(samples)), p95_ms: samples[Math.ceil(0.95 * n) - 1],
           min_ms: samples[0], max_ms: samples[n - 1], samples_sorted_ms: samples,
           round_medians_ms: summaries.map((s) => s.median_ms) };
}
const peakRss = (list) => Math.max(...list.map((t) => t.peak_rss_bytes));

const manifest = read('site/manifest.json');
const cpus = os.cpus().length;

// --- Playwright ---------------------------------------------------------------------------
const theirsRounds = [];
const theirTrees = [];
for (let r = 1; r <= rounds; r++) {
  theirsRounds.push(read(`playwright-${r}.json`));
  theirTrees.push(read(`playwright-${r}-tree.json`));
}
if (theirsRounds.some((t) => !t.ok)) {
  console.error('bench: the Playwright side failed; see', work);
  process.exit(1);
}
const theirs = theirsRounds[rounds - 1];
const snapshot = pooled(theirsRounds.map((t) => t.snapshot));
const coldTheirs = [];
for (let run = 1; run <= coldRuns; run++) coldTheirs.push(read(`playwright-cold-${run}.json`).cold_start);
coldTheirs.push(theirsRounds[0].cold_start);
const theirCold = {
  from_process_start_ms: round(median(coldTheirs.map((c) => c.from_process_start_ms))),
  in_process_ms: round(median(coldTheirs.map((c) => c.in_process_ms))),
  goto_load_ms: round(median(coldTheirs.map((c) => c.goto_load_ms))),
  first_snapshot_ms: round(median(coldTheirs.map((c) => c.first_snapshot_ms))),
  samples_from_process_start_ms: coldTheirs.map((c) => c.from_process_start_ms),
};
const theirRss = { peak_bytes: peakRss(theirTrees),
                   peak_processes: Math.max(...theirTrees.map((t) => t.peak_processes)),
                   round_peaks_mib: theirTrees.map((t) => t.peak_rss_mib) };

// --- each engine of ours --------------------------------------------------------------------
// The targets per engine: the Chromium placement's from docs/decisions/0014, Qt WebEngine's
// as they were set for it.
const targetLimits = {
  chromium: { observe: 0.10, projection: 0.10, full: 1.0, rss: 1.0 },
  qtwebengine: { observe: 0.25, projection: 0.10, full: 1.0, rss: null },
};
const allTrees = [...theirTrees];
const engines = {};
for (const name of engineNames) {
  const runs = [];
  const trees = [];
  for (let r = 1; r <= rounds; r++) {
    runs.push(read(`${name}-${r}.json`));
    trees.push(read(`${name}-${r}-tree.json`));
  }
  if (runs.some((o) => !o.ok)) {
    console.error(`bench: the ${name} side failed; see`, work);
    process.exit(1);
  }
  allTrees.push(...trees);
  // Sizes and versions from the last round; the probe from the last round where it answered.
  const last = runs[rounds - 1];
  const probe = [...runs].reverse().map((o) => o.probe).find((p) => p && p.ok) ?? last.probe ?? null;
  const observe = pooled(runs.map((o) => o.observe));
  const walks = (key) => {
    const all = runs.map((o) => o[key]);
    return { ...all[all.length - 1], total_ms: round(median(all.map((w) => w.total_ms))),
             round_totals_ms: all.map((w) => w.total_ms) };
  };
  const walkCursor = walks('walk_cursor');
  const walkProjection = walks('walk_projection');
  const colds = [];
  for (let run = 1; run <= coldRuns; run++) colds.push(read(`${name}-cold-${run}.json`).cold_start);
  colds.push(runs[0].cold_start);
  for (let run = 0; run <= coldRuns; run++) {
    const tree = `${name}-cold-${run}-tree.json`;
    if (existsSync(join(work, tree))) allTrees.push(read(tree));
  }
  const cold = {
    runs: colds.length,
    from_process_start_ms: round(median(colds.map((c) => c.from_process_start_ms))),
    from_provider_ms: round(median(colds.map((c) => c.from_provider_ms))),
    navigate_ms: round(median(colds.map((c) => c.navigate_ms))),
    samples_from_process_start_ms: colds.map((c) => c.from_process_start_ms),
  };
  const rss = { peak_bytes: peakRss(trees),
                peak_processes: Math.max(...trees.map((t) => t.peak_processes)),
                round_peaks_mib: trees.map((t) => t.peak_rss_mib),
                sample_interval_ms: trees[0].interval_ms };
  const ratios = {
    observe_median: round(observe.median_ms / snapshot.median_ms, 4),
    observe_p95: round(observe.p95_ms / snapshot.p95_ms, 4),
    full_coverage_time_ratio: round(walkProjection.total_ms / snapshot.median_ms, 4),
    full_coverage_bytes_ratio: round(walkProjection.projected_bytes_total /
                                     theirs.snapshot_size.utf8_bytes, 4),
    projection_vs_snapshot_bytes: round(last.first_window.projection_bytes /
                                        theirs.snapshot_size.utf8_bytes, 4),
    canonical_vs_snapshot_bytes: round(last.first_window.canonical_bytes /
                                       theirs.snapshot_size.utf8_bytes, 4),
    rss_ratio: round(rss.peak_bytes / theirRss.peak_bytes, 4),
    cold_start_process: round(cold.from_process_start_ms / theirCold.from_process_start_ms, 4),
    cold_start_in_process: round(cold.from_provider_ms / theirCold.in_process_ms, 4),
    cursor_walk_vs_snapshot: round(walkCursor.total_ms / snapshot.median_ms, 4),
  };
  engines[name] = {
    engine: name,
    chromium_version: last.chromium_version ?? null,
    qt_webengine_version: last.qt_webengine_version ?? null,
    iterations: last.iterations,
    budget_bytes: last.budget_bytes,
    observe,
    projection_compute: last.projection_compute,
    first_window: last.first_window,
    walk_cursor: walkCursor,
    walk_projection: walkProjection,
    cold_start: cold,
    rss,
    collector_probe: probe,
    ratios,
    load_average_1m_by_run: trees.map((t) => t.load_average_1m),
  };
}

const loadMax = Math.max(...allTrees.map((t) => Math.max(t.load_average_1m.max,
                                                        t.load_average_1m.end)));
// The README guard: the machine's load before the runs (bench.sh waits for it to settle) at
// most the CPU count. The load during the runs includes the benchmark's own browsers, which
// keep both cores busy by themselves; it is recorded and printed beside it.
const ambient = read('ambient.json').load_average_1m_before_runs;
const quiet = ambient <= cpus;
for (const [name, e] of Object.entries(engines)) {
  const limits = targetLimits[name] ?? targetLimits.qtwebengine;
  const target = (ratio, limit, extra = {}) => ({ ratio, limit, holds: ratio <= limit, ...extra });
  e.targets = {
    observe_median: target(e.ratios.observe_median, limits.observe),
    projection_bytes: target(e.ratios.projection_vs_snapshot_bytes, limits.projection),
    // Only a quiet machine's run decides the time targets (measured_quiet).
    full_coverage_time: target(e.ratios.full_coverage_time_ratio, limits.full,
                               { measured_quiet: quiet }),
  };
  if (limits.rss !== null) e.targets.peak_rss = target(e.ratios.rss_ratio, limits.rss);
}

const result = {
  generated_at: new Date().toISOString(),
  machine: { cpus, cpu_model: os.cpus()[0]?.model ?? '', kernel: os.release(),
             total_memory_mib: Math.round(os.totalmem() / 1048576),
             // Other work on the machine skews every figure: check this before comparing runs.
             load_average_1_5_15_at_end: os.loadavg().map((v) => round(v)),
             load_average_1m_before_runs: round(ambient),
             load_average_1m_max: round(loadMax),
             quiet,
             readme_figures: quiet },
  build_type: args['build-type'] || null,
  page: manifest,
  rounds,
  order: `${engineNames.join(', ')}, playwright, repeated per round`,
  iterations: theirs.iterations ?? engines[engineNames[0]]?.iterations,
  engines,
  playwright: {
    playwright_core_version: theirs.playwright_core_version,
    browser_version: theirs.browser_version,
    api: theirs.api,
    snapshot,
    snapshot_size: theirs.snapshot_size,
    cold_start: theirCold,
    rss: theirRss,
    load_average_1m_by_run: theirTrees.map((t) => t.load_average_1m),
  },
};
writeFileSync(args.out, JSON.stringify(result, null, 2) + '\n');

// ---------------------------------------------------------------- table
const ms = (v) => (v === null || v === undefined ? 'n/a' : `${v.toFixed(1)} ms`);
const kib = (b) => `${b.toLocaleString('en-US')} B (${(b / 1024).toFixed(1)} KiB)`;
const ratio = (r) => (r === null || r === undefined ? '' : `${r.toFixed(3)}`);
const held = (t) => (t.holds ? 'HOLDS' : 'MISSED');
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
const label = (e) => (e.engine === 'chromium' ? `Veetbot on Chromium ${e.chromium_version}`
                      : `Veetbot on Qt WebEngine ${e.qt_webengine_version} (Chromium ${e.chromium_version})`);
const list = engineNames.map((n) => engines[n]);
const header = ['', ...list.map(label), `Playwright ${theirs.playwright_core_version} ` +
                `(ariaSnapshot ai, Chromium ${theirs.browser_version})`,
                ...list.map((e) => `${e.engine}/Playwright`)];
const row = (title, ours, theirsCell, ratios) => [title, ...ours, theirsCell, ...ratios];
const rows = [
  header,
  row(`Full coverage, all ${manifest.controls} controls: time (next_observe walk / one snapshot)`,
      list.map((e) => `${e.walk_projection.windows} windows, ${ms(e.walk_projection.total_ms)}`),
      ms(snapshot.median_ms), list.map((e) => ratio(e.ratios.full_coverage_time_ratio))),
  row('Full coverage: bytes the model reads (all projections / one snapshot, UTF-8)',
      list.map((e) => kib(e.walk_projection.projected_bytes_total)),
      kib(theirs.snapshot_size.utf8_bytes), list.map((e) => ratio(e.ratios.full_coverage_bytes_ratio))),
  row('Peak RSS of the whole process tree (in-session run)',
      list.map((e) => `${mib(e.rss.peak_bytes)}, ${e.rss.peak_processes} processes`),
      `${mib(theirRss.peak_bytes)}, ${theirRss.peak_processes} processes`,
      list.map((e) => ratio(e.ratios.rss_ratio))),
  row(`Cold start, process start -> first observation (median of ${coldRuns + 1})`,
      list.map((e) => ms(e.cold_start.from_process_start_ms)), ms(theirCold.from_process_start_ms),
      list.map((e) => ratio(e.ratios.cold_start_process))),
  row('Cold start, provider/launch -> first observation',
      list.map((e) => ms(e.cold_start.from_provider_ms)), ms(theirCold.in_process_ms),
      list.map((e) => ratio(e.ratios.cold_start_in_process))),
  row(`In-session observe, median (n=${snapshot.n})`, list.map((e) => ms(e.observe.median_ms)),
      ms(snapshot.median_ms), list.map((e) => ratio(e.ratios.observe_median))),
  row('In-session observe, p95', list.map((e) => ms(e.observe.p95_ms)), ms(snapshot.p95_ms),
      list.map((e) => ratio(e.ratios.observe_p95))),
  row('  our share in the page: collector capture() (median of 10)',
      list.map((e) => (e.collector_probe?.capture_in_page_median_ms !== undefined
                       ? ms(e.collector_probe.capture_in_page_median_ms) : 'n/a')), '',
      list.map(() => '')),
  row('What the model gets (projection @ budget / snapshot, UTF-8)',
      list.map((e) => kib(e.first_window.projection_bytes)), kib(theirs.snapshot_size.utf8_bytes),
      list.map((e) => ratio(e.ratios.projection_vs_snapshot_bytes))),
  row('Full walk by cursor (provider windows)',
      list.map((e) => `${e.walk_cursor.windows} windows, ${ms(e.walk_cursor.total_ms)}, ` +
                      `${e.walk_cursor.distinct_controls} controls`),
      '(one snapshot)', list.map((e) => ratio(e.ratios.cursor_walk_vs_snapshot))),
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
const line = (r) => r.map((cell, c) => cell.padEnd(widths[c])).join(' | ');
const out = [];
out.push(`Heavy page: ${manifest.controls} controls, ${manifest.prose_bytes} B prose, ` +
         `${manifest.table_rows}-row table, ${manifest.shadow_widgets} widgets with shadow ` +
         `roots ${manifest.shadow_depth} deep (${manifest.html_bytes} B HTML), loopback HTTPS`);
out.push(`Machine: ${cpus} CPUs, ${result.machine.cpu_model}; 1-minute load average ` +
         `${round(ambient)} before the runs, at most ${round(loadMax)} during them, ` +
         `${result.machine.load_average_1_5_15_at_end.join(' ')} ` +
         `at the end (${quiet ? 'quiet' : 'LOADED: the figures are not comparable'})`);
out.push(`Runs: ${rounds} interleaved rounds (${result.order}) of ${theirs.iterations ?? '?'} ` +
         `in-session calls per side; build ${result.build_type ?? 'unknown'}`);
out.push('');
out.push(line(rows[0]));
out.push(widths.map((w) => '-'.repeat(w)).join('-+-'));
for (const r of rows.slice(1)) out.push(line(r));
out.push('');
for (const e of list) {
  for (const [key, t] of Object.entries(e.targets)) {
    out.push(`Target (${e.engine}): ${key} <= ${t.limit} of Playwright's: ${ratio(t.ratio)} -> ` +
             held(t) + (t.measured_quiet === false ? ' (loaded machine: not decided)' : ''));
  }
}
console.log(out.join('\n'));

// ---------------------------------------------------------------- README snippet
// Only from a quiet machine: a loaded one makes every figure incomparable.
if (!quiet) {
  console.log(`\nNo README snippet: the 1-minute load average before the runs was ` +
              `${round(ambient)}, more than the ${cpus} CPUs. Rerun on a quiet machine.`);
  console.log(`\nWritten: ${args.out}`);
  process.exit(0);
}
const md = [];
md.push(`| heavy page, loopback | ${list.map((e) => (e.engine === 'chromium' ? 'Veetbot, Chromium'
                                                    : 'Veetbot, Qt WebEngine')).join(' | ')} | ` +
        `Playwright \`ariaSnapshot({mode:"ai"})\` | ${list.map((e) => `ratio (${e.engine})`).join(' | ')} |`);
md.push(`| ${Array(2 + 2 * list.length).fill('---').join(' | ')} |`);
const mdRow = (title, ours, theirsCell, ratios) =>
  md.push(`| ${title} | ${ours.join(' | ')} | ${theirsCell} | ${ratios.join(' | ')} |`);
mdRow('browser', list.map((e) => (e.engine === 'chromium' ? `Chromium ${e.chromium_version}`
                                  : `Qt WebEngine ${e.qt_webengine_version} (Chromium ${e.chromium_version})`)),
      `Chromium ${theirs.browser_version} (playwright-core ${theirs.playwright_core_version})`,
      list.map(() => ''));
mdRow(`full coverage (all ${manifest.controls.toLocaleString('en-US')} controls), time`,
      list.map((e) => `${ms(e.walk_projection.total_ms)} (${e.walk_projection.windows} windows)`),
      `${ms(snapshot.median_ms)} (one snapshot)`, list.map((e) => ratio(e.ratios.full_coverage_time_ratio)));
mdRow('full coverage, bytes the model reads',
      list.map((e) => e.walk_projection.projected_bytes_total.toLocaleString('en-US')),
      theirs.snapshot_size.utf8_bytes.toLocaleString('en-US'),
      list.map((e) => ratio(e.ratios.full_coverage_bytes_ratio)));
mdRow('peak RSS, whole process tree', list.map((e) => mib(e.rss.peak_bytes)), mib(theirRss.peak_bytes),
      list.map((e) => ratio(e.ratios.rss_ratio)));
mdRow('cold start to first observation', list.map((e) => ms(e.cold_start.from_process_start_ms)),
      ms(theirCold.from_process_start_ms), list.map((e) => ratio(e.ratios.cold_start_process)));
mdRow('in-session observe, median / p95',
      list.map((e) => `${ms(e.observe.median_ms)} / ${ms(e.observe.p95_ms)}`),
      `${ms(snapshot.median_ms)} / ${ms(snapshot.p95_ms)}`, list.map((e) => ratio(e.ratios.observe_median)));
mdRow('bytes of one answer', list.map((e) => e.first_window.projection_bytes.toLocaleString('en-US')),
      theirs.snapshot_size.utf8_bytes.toLocaleString('en-US'),
      list.map((e) => ratio(e.ratios.projection_vs_snapshot_bytes)));
console.log('\nREADME snippet (docs/benchmark.md explains the figures):\n');
console.log(`The observation benchmark (\`scripts/bench.sh\`, ${cpus} CPUs, 1-minute load ` +
            `average ${round(ambient)} before the runs and at most ${round(loadMax)} during ` +
            `them, ${result.generated_at.slice(0, 10)}): ` +
            `${manifest.controls.toLocaleString('en-US')} controls, ` +
            `${Math.round(manifest.prose_bytes / 1000)} KB of prose, a ` +
            `${manifest.table_rows}-row table and shadow roots ${manifest.shadow_depth} deep.\n`);
console.log(md.join('\n'));
console.log(`\nWritten: ${args.out}`);
