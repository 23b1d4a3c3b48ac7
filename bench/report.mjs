// Combines the two sides' JSON (written by scripts/bench.sh into its work directory) into one
// comparison: prints the table, writes the combined result file, and prints a README snippet
// only when the machine was quiet (the 1-minute load average never above the CPU count).
//
//   node bench/report.mjs --work DIR --cold-runs N --rounds R [--build-type T]
//        --out bench/results/latest.json

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const work = args.work;
const coldRuns = Number(args['cold-runs'] || 0);
const rounds = Number(args.rounds || 1);
const read = (name) => JSON.parse(readFileSync(join(work, name), 'utf8'));

const manifest = read('site/manifest.json');
const oursRounds = [];
const theirsRounds = [];
for (let r = 1; r <= rounds; r++) {
  oursRounds.push(read(`ours-${r}.json`));
  theirsRounds.push(read(`playwright-${r}.json`));
}
if (oursRounds.some((o) => !o.ok) || theirsRounds.some((t) => !t.ok)) {
  console.error('bench: a side failed; see', work);
  process.exit(1);
}
// Sizes and versions from the last round (they do not change between rounds); the probe from
// the last round where it answered (on a loaded machine it may run out of time).
const ours = oursRounds[rounds - 1];
const theirs = theirsRounds[rounds - 1];
const probe = [...oursRounds].reverse().map((o) => o.probe).find((p) => p && p.ok) ??
  ours.probe ?? null;

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return null;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
const round = (v, digits = 2) => (v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits);

// All rounds' samples pooled: median and nearest-rank p95, as both sides compute them.
function pooled(summaries) {
  const samples = summaries.flatMap((s) => s.samples_sorted_ms).sort((a, b) => a - b);
  const n = samples.length;
  return { n, median_ms: round(median(samples)), p95_ms: samples[Math.ceil(0.95 * n) - 1],
           min_ms: samples[0], max_ms: samples[n - 1], samples_sorted_ms: samples,
           round_medians_ms: summaries.map((s) => s.median_ms) };
}
const observe = pooled(oursRounds.map((o) => o.observe));
const snapshot = pooled(theirsRounds.map((t) => t.snapshot));

// A walk to full coverage per round; the median of their totals.
function walks(key) {
  const all = oursRounds.map((o) => o[key]);
  return { ...all[all.length - 1], total_ms: round(median(all.map((w) => w.total_ms))),
           round_totals_ms: all.map((w) => w.total_ms) };
}
const walkCursor = walks('walk_cursor');
const walkProjection = walks('walk_projection');

// The sampler's record of every run (tree-rss.mjs): peak RSS of the in-session runs' process
// trees, and the load average over the whole benchmark, cold starts included.
const trees = { ours: [], playwright: [], cold: [] };
for (let r = 1; r <= rounds; r++) {
  trees.ours.push(read(`ours-${r}-tree.json`));
  trees.playwright.push(read(`playwright-${r}-tree.json`));
}
for (let run = 0; run <= coldRuns; run++) {
  for (const side of ['ours', 'playwright']) {
    const name = `${side}-cold-${run}-tree.json`;
    if (existsSync(join(work, name))) trees.cold.push(read(name));
  }
}
const allTrees = [...trees.ours, ...trees.playwright, ...trees.cold];
const cpus = os.cpus().length;
const loadMax = Math.max(...allTrees.map((t) => Math.max(t.load_average_1m.max,
                                                        t.load_average_1m.end)));
// The README guard: the machine's load before the runs (bench.sh waits for it to settle) at
// most the CPU count. The load during the runs includes the benchmark's own browsers, which
// keep both cores busy by themselves; it is recorded and printed beside it.
const ambient = read('ambient.json').load_average_1m_before_runs;
const quiet = ambient <= cpus;
const peakRss = (list) => Math.max(...list.map((t) => t.peak_rss_bytes));
const rss = {
  ours_peak_bytes: peakRss(trees.ours),
  playwright_peak_bytes: peakRss(trees.playwright),
  ours_peak_processes: Math.max(...trees.ours.map((t) => t.peak_processes)),
  playwright_peak_processes: Math.max(...trees.playwright.map((t) => t.peak_processes)),
  ours_round_peaks_mib: trees.ours.map((t) => t.peak_rss_mib),
  playwright_round_peaks_mib: trees.playwright.map((t) => t.peak_rss_mib),
  sample_interval_ms: trees.ours[0].interval_ms,
};

// Cold starts: the fresh processes after the warm-up (run 0), then the in-session run's own.
const coldOurs = [];
const coldTheirs = [];
for (let run = 1; run <= coldRuns; run++) {
  coldOurs.push(read(`ours-cold-${run}.json`).cold_start);
  coldTheirs.push(read(`playwright-cold-${run}.json`).cold_start);
}
coldOurs.push(oursRounds[0].cold_start);
coldTheirs.push(theirsRounds[0].cold_start);

const cold = {
  runs: coldOurs.length,
  ours_from_process_start_ms: round(median(coldOurs.map((c) => c.from_process_start_ms))),
  ours_from_provider_ms: round(median(coldOurs.map((c) => c.from_provider_ms))),
  ours_navigate_ms: round(median(coldOurs.map((c) => c.navigate_ms))),
  ours_load_finished_ms: round(median(coldOurs.map((c) => c.load_finished_ms))),
  playwright_from_process_start_ms: round(median(coldTheirs.map((c) => c.from_process_start_ms))),
  playwright_in_process_ms: round(median(coldTheirs.map((c) => c.in_process_ms))),
  playwright_goto_load_ms: round(median(coldTheirs.map((c) => c.goto_load_ms))),
  playwright_first_snapshot_ms: round(median(coldTheirs.map((c) => c.first_snapshot_ms))),
  samples_ours_from_process_start_ms: coldOurs.map((c) => c.from_process_start_ms),
  samples_playwright_from_process_start_ms: coldTheirs.map((c) => c.from_process_start_ms),
};

const observeRatio = observe.median_ms / snapshot.median_ms;
const sizeRatio = ours.first_window.projection_bytes / theirs.snapshot_size.utf8_bytes;
const coldRatio = cold.ours_from_process_start_ms / cold.playwright_from_process_start_ms;
// Full coverage as a model meets it: every control reached by following next_observe from the
// projection at the default budget (time of all windows, bytes of all projections) against one
// whole-page snapshot.
const fullTimeRatio = walkProjection.total_ms / snapshot.median_ms;
const fullBytesRatio = walkProjection.projected_bytes_total / theirs.snapshot_size.utf8_bytes;
const rssRatio = rss.ours_peak_bytes / rss.playwright_peak_bytes;
const targets = {
  observe_median_at_most_quarter: { ratio: round(observeRatio, 4), limit: 0.25,
                                    holds: observeRatio <= 0.25 },
  projection_at_most_tenth: { ratio: round(sizeRatio, 4), limit: 0.1, holds: sizeRatio <= 0.1 },
  // Only a quiet machine's run decides this one (measured_quiet).
  full_coverage_at_most_one_snapshot: { ratio: round(fullTimeRatio, 4), limit: 1.0,
                                        holds: fullTimeRatio <= 1.0, measured_quiet: quiet },
};

const result = {
  generated_at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? '', kernel: os.release(),
             total_memory_mib: Math.round(os.totalmem() / 1048576),
             // Other work on the machine skews every figure: check this before comparing runs.
             load_average_1_5_15_at_end: os.loadavg().map((v) => round(v)),
             load_average_1m_before_runs: round(ambient),
             load_average_1m_max: round(loadMax),
             load_average_1m_by_run: {
               ours: trees.ours.map((t) => t.load_average_1m),
               playwright: trees.playwright.map((t) => t.load_average_1m),
             },
             quiet,
             readme_figures: quiet },
  build_type: args['build-type'] || null,
  page: manifest,
  rounds,
  order: 'ours, playwright, repeated per round',
  iterations: ours.iterations,
  ours: {
    qt_webengine_version: ours.qt_webengine_version,
    chromium_version: ours.chromium_version,
    observe,
    projection_compute: ours.projection_compute,
    first_window: ours.first_window,
    walk_cursor: walkCursor,
    walk_projection: walkProjection,
    cold_start: oursRounds[0].cold_start,
    collector_probe: probe,
  },
  playwright: {
    playwright_core_version: theirs.playwright_core_version,
    browser_version: theirs.browser_version,
    api: theirs.api,
    snapshot,
    snapshot_size: theirs.snapshot_size,
    cold_start: theirsRounds[0].cold_start,
  },
  cold_start: cold,
  rss,
  ratios: {
    full_coverage_time_ratio: round(fullTimeRatio, 4),
    full_coverage_bytes_ratio: round(fullBytesRatio, 4),
    rss_ratio: round(rssRatio, 4),
    observe_median: round(observeRatio, 4),
    observe_p95: round(observe.p95_ms / snapshot.p95_ms, 4),
    projection_vs_snapshot_bytes: round(sizeRatio, 4),
    canonical_vs_snapshot_bytes: round(ours.first_window.canonical_bytes /
                                       theirs.snapshot_size.utf8_bytes, 4),
    cold_start_process: round(coldRatio, 4),
    cold_start_in_process: round(cold.ours_from_provider_ms / cold.playwright_in_process_ms, 4),
    cursor_walk_vs_snapshot: round(walkCursor.total_ms / snapshot.median_ms, 4),
  },
  targets,
};
writeFileSync(args.out, JSON.stringify(result, null, 2) + '\n');

// ---------------------------------------------------------------- table
const ms = (v) => `${v.toFixed(1)} ms`;
const kib = (b) => `${b.toLocaleString('en-US')} B (${(b / 1024).toFixed(1)} KiB)`;
const ratio = (r) => `${r.toFixed(3)}`;
const held = (t) => (t.holds ? 'HOLDS' : 'MISSED');
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
const fw = ours.first_window;
const wp = walkProjection;
const wc = walkCursor;
const rows = [
  ['', 'Veetbot (WebEngineProvider)', 'Playwright (ariaSnapshot ai)', 'ours/theirs'],
  ['Browser', `Qt WebEngine ${ours.qt_webengine_version}, Chromium ${ours.chromium_version}`,
   `playwright-core ${theirs.playwright_core_version}, Chromium ${theirs.browser_version}`, ''],
  [`Full coverage, all ${manifest.controls} controls: time (next_observe walk / one snapshot)`,
   `${wp.windows} windows, ${ms(wp.total_ms)}`, ms(snapshot.median_ms), ratio(fullTimeRatio)],
  ['Full coverage: bytes the model reads (all projections / one snapshot, UTF-8)',
   kib(wp.projected_bytes_total), kib(theirs.snapshot_size.utf8_bytes), ratio(fullBytesRatio)],
  ['Peak RSS of the whole process tree (in-session run)',
   `${mib(rss.ours_peak_bytes)}, ${rss.ours_peak_processes} processes`,
   `${mib(rss.playwright_peak_bytes)}, ${rss.playwright_peak_processes} processes`,
   ratio(rssRatio)],
  [`Cold start, process start -> first observation (median of ${cold.runs})`,
   ms(cold.ours_from_process_start_ms), ms(cold.playwright_from_process_start_ms), ratio(coldRatio)],
  ['Cold start, provider/launch -> first observation', ms(cold.ours_from_provider_ms),
   ms(cold.playwright_in_process_ms), ratio(result.ratios.cold_start_in_process)],
  [`In-session observe, median (n=${observe.n})`, ms(observe.median_ms),
   ms(snapshot.median_ms), ratio(observeRatio)],
  ['In-session observe, p95', ms(observe.p95_ms), ms(snapshot.p95_ms),
   ratio(result.ratios.observe_p95)],
  ['  our share in the page: collector capture() (median of 10)',
   probe?.capture_in_page_median_ms !== undefined ? ms(probe.capture_in_page_median_ms) : 'n/a',
   '', ''],
  ['What the model gets (projection @ budget / snapshot, UTF-8)',
   kib(fw.projection_bytes), kib(theirs.snapshot_size.utf8_bytes), ratio(sizeRatio)],
  ['Canonical observation (compact JSON) / snapshot, UTF-8', kib(fw.canonical_bytes),
   `${theirs.snapshot_size.chars.toLocaleString('en-US')} chars`,
   ratio(result.ratios.canonical_vs_snapshot_bytes)],
  ['Controls in one answer', `${fw.projection_exposed_elements} projected of ${fw.elements} in window`,
   `${theirs.snapshot_size.interactive_nodes} (whole page)`, ''],
  ['Full walk by cursor (provider windows)',
   `${wc.windows} windows, ${ms(wc.total_ms)}, ${wc.distinct_controls} controls`,
   '(one snapshot)', ratio(result.ratios.cursor_walk_vs_snapshot)],
  [`Full walk by next_observe @ ${ours.budget_bytes ?? 16384} B`,
   `${wp.windows} windows, ${ms(wp.total_ms)}, ${wp.distinct_controls} controls`, '', ''],
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
out.push(`Runs: ${rounds} interleaved rounds (ours, Playwright, ...) of ${ours.iterations} ` +
         `in-session calls per side; build ${result.build_type ?? 'unknown'}`);
out.push('');
out.push(line(rows[0]));
out.push(widths.map((w) => '-'.repeat(w)).join('-+-'));
for (const r of rows.slice(1)) out.push(line(r));
out.push('');
out.push(`Target: our observe median <= 1/4 of ariaSnapshot's: ${ratio(observeRatio)} -> ` +
         held(targets.observe_median_at_most_quarter));
out.push(`Target: our projection <= 1/10 of ariaSnapshot's size: ${ratio(sizeRatio)} -> ` +
         held(targets.projection_at_most_tenth));
out.push(`Target: full coverage in at most one snapshot's time: ${ratio(fullTimeRatio)} -> ` +
         held(targets.full_coverage_at_most_one_snapshot) +
         (quiet ? '' : ' (on a loaded machine: this run does not decide it)'));
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
md.push('| heavy page, loopback | Veetbot | Playwright `ariaSnapshot({mode:"ai"})` | ratio |');
md.push('| --- | --- | --- | --- |');
md.push(`| Chromium | ${ours.chromium_version} (Qt WebEngine ${ours.qt_webengine_version}) | ` +
        `${theirs.browser_version} (playwright-core ${theirs.playwright_core_version}) | |`);
md.push(`| full coverage (all ${manifest.controls.toLocaleString('en-US')} controls), time | ` +
        `${ms(wp.total_ms)} (${wp.windows} windows by next_observe) | ${ms(snapshot.median_ms)} ` +
        `(one snapshot) | ${ratio(fullTimeRatio)} |`);
md.push(`| full coverage, bytes the model reads | ` +
        `${wp.projected_bytes_total.toLocaleString('en-US')} | ` +
        `${theirs.snapshot_size.utf8_bytes.toLocaleString('en-US')} | ${ratio(fullBytesRatio)} |`);
md.push(`| peak RSS, whole process tree | ${mib(rss.ours_peak_bytes)} | ` +
        `${mib(rss.playwright_peak_bytes)} | ${ratio(rssRatio)} |`);
md.push(`| cold start to first observation | ${ms(cold.ours_from_process_start_ms)} | ` +
        `${ms(cold.playwright_from_process_start_ms)} | ${ratio(coldRatio)} |`);
md.push(`| in-session observe, median / p95 | ${ms(observe.median_ms)} / ` +
        `${ms(observe.p95_ms)} | ${ms(snapshot.median_ms)} / ` +
        `${ms(snapshot.p95_ms)} | ${ratio(observeRatio)} |`);
md.push(`| bytes of one answer | ${fw.projection_bytes.toLocaleString('en-US')} ` +
        `(projection, 16 KiB budget) | ${theirs.snapshot_size.utf8_bytes.toLocaleString('en-US')} | ` +
        `${ratio(sizeRatio)} |`);
console.log('\nREADME snippet (docs/benchmark.md explains the figures):\n');
console.log(`The observation benchmark (\`scripts/bench.sh\`, ${cpus} CPUs, 1-minute load ` +
            `average ${round(ambient)} before the runs and at most ${round(loadMax)} during ` +
            `them, ${result.generated_at.slice(0, 10)}): ` +
            `${manifest.controls.toLocaleString('en-US')} controls, ` +
            `${Math.round(manifest.prose_bytes / 1000)} KB of prose, a ` +
            `${manifest.table_rows}-row table and shadow roots ${manifest.shadow_depth} deep.\n`);
console.log(md.join('\n'));
console.log(`\nWritten: ${args.out}`);
