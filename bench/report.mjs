// Combines the two sides' JSON (written by scripts/bench.sh into its work directory) into one
// comparison: prints the table and a README snippet, writes the combined result file.
//
//   node bench/report.mjs --work DIR --cold-runs N --out bench/results/latest.json

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const work = args.work;
const coldRuns = Number(args['cold-runs'] || 0);
const read = (name) => JSON.parse(readFileSync(join(work, name), 'utf8'));

const ours = read('ours.json');
const theirs = read('playwright.json');
const manifest = read('site/manifest.json');
if (!ours.ok || !theirs.ok) {
  console.error('bench: a side failed; see', work);
  process.exit(1);
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return null;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
const round = (v, digits = 2) => (v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits);

// Cold starts: the fresh processes after the warm-up (run 0), then the in-session run's own.
const coldOurs = [];
const coldTheirs = [];
for (let run = 1; run <= coldRuns; run++) {
  coldOurs.push(read(`ours-cold-${run}.json`).cold_start);
  coldTheirs.push(read(`playwright-cold-${run}.json`).cold_start);
}
coldOurs.push(ours.cold_start);
coldTheirs.push(theirs.cold_start);

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

const observeRatio = ours.observe.median_ms / theirs.snapshot.median_ms;
const sizeRatio = ours.first_window.projection_bytes / theirs.snapshot_size.utf8_bytes;
const coldRatio = cold.ours_from_process_start_ms / cold.playwright_from_process_start_ms;
const targets = {
  observe_median_at_most_quarter: { ratio: round(observeRatio, 4), limit: 0.25,
                                    holds: observeRatio <= 0.25 },
  projection_at_most_tenth: { ratio: round(sizeRatio, 4), limit: 0.1, holds: sizeRatio <= 0.1 },
};

const result = {
  generated_at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? '', kernel: os.release(),
             total_memory_mib: Math.round(os.totalmem() / 1048576),
             // Other work on the machine skews every figure: check this before comparing runs.
             load_average_1_5_15_at_end: os.loadavg().map((v) => round(v)) },
  page: manifest,
  iterations: ours.iterations,
  ours: {
    qt_webengine_version: ours.qt_webengine_version,
    chromium_version: ours.chromium_version,
    observe: ours.observe,
    projection_compute: ours.projection_compute,
    first_window: ours.first_window,
    walk_cursor: ours.walk_cursor,
    walk_projection: ours.walk_projection,
    cold_start: ours.cold_start,
    collector_probe: ours.probe ?? null,
  },
  playwright: {
    playwright_core_version: theirs.playwright_core_version,
    browser_version: theirs.browser_version,
    api: theirs.api,
    snapshot: theirs.snapshot,
    snapshot_size: theirs.snapshot_size,
    cold_start: theirs.cold_start,
  },
  cold_start: cold,
  ratios: {
    observe_median: round(observeRatio, 4),
    observe_p95: round(ours.observe.p95_ms / theirs.snapshot.p95_ms, 4),
    projection_vs_snapshot_bytes: round(sizeRatio, 4),
    canonical_vs_snapshot_bytes: round(ours.first_window.canonical_bytes /
                                       theirs.snapshot_size.utf8_bytes, 4),
    cold_start_process: round(coldRatio, 4),
    cold_start_in_process: round(cold.ours_from_provider_ms / cold.playwright_in_process_ms, 4),
    cursor_walk_vs_snapshot: round(ours.walk_cursor.total_ms / theirs.snapshot.median_ms, 4),
  },
  targets,
};
writeFileSync(args.out, JSON.stringify(result, null, 2) + '\n');

// ---------------------------------------------------------------- table
const ms = (v) => `${v.toFixed(1)} ms`;
const kib = (b) => `${b.toLocaleString('en-US')} B (${(b / 1024).toFixed(1)} KiB)`;
const ratio = (r) => `${r.toFixed(3)}`;
const held = (t) => (t.holds ? 'HOLDS' : 'MISSED');
const fw = ours.first_window;
const rows = [
  ['', 'Veetbot (WebEngineProvider)', 'Playwright (ariaSnapshot ai)', 'ours/theirs'],
  ['Browser', `Qt WebEngine ${ours.qt_webengine_version}, Chromium ${ours.chromium_version}`,
   `playwright-core ${theirs.playwright_core_version}, Chromium ${theirs.browser_version}`, ''],
  [`Cold start, process start -> first observation (median of ${cold.runs})`,
   ms(cold.ours_from_process_start_ms), ms(cold.playwright_from_process_start_ms), ratio(coldRatio)],
  ['Cold start, provider/launch -> first observation', ms(cold.ours_from_provider_ms),
   ms(cold.playwright_in_process_ms), ratio(result.ratios.cold_start_in_process)],
  [`In-session observe, median (n=${ours.observe.n})`, ms(ours.observe.median_ms),
   ms(theirs.snapshot.median_ms), ratio(observeRatio)],
  ['In-session observe, p95', ms(ours.observe.p95_ms), ms(theirs.snapshot.p95_ms),
   ratio(result.ratios.observe_p95)],
  ['  our share in the page: collector capture() (median of 10)',
   ours.probe?.capture_in_page_median_ms !== undefined ? ms(ours.probe.capture_in_page_median_ms) : 'n/a',
   '', ''],
  ['What the model gets (projection @ budget / snapshot, UTF-8)',
   kib(fw.projection_bytes), kib(theirs.snapshot_size.utf8_bytes), ratio(sizeRatio)],
  ['Canonical observation (compact JSON) / snapshot, UTF-8', kib(fw.canonical_bytes),
   `${theirs.snapshot_size.chars.toLocaleString('en-US')} chars`,
   ratio(result.ratios.canonical_vs_snapshot_bytes)],
  ['Controls in one answer', `${fw.projection_exposed_elements} projected of ${fw.elements} in window`,
   `${theirs.snapshot_size.interactive_nodes} (whole page)`, ''],
  ['Full walk by cursor (provider windows)',
   `${ours.walk_cursor.windows} windows, ${ms(ours.walk_cursor.total_ms)}, ` +
   `${ours.walk_cursor.distinct_controls} controls`, '(one snapshot)', ''],
  [`Full walk by next_observe @ ${ours.budget_bytes ?? 16384} B`,
   `${ours.walk_projection.windows} windows, ${ms(ours.walk_projection.total_ms)}, ` +
   `${ours.walk_projection.distinct_controls} controls`, '', ''],
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
const line = (r) => r.map((cell, c) => cell.padEnd(widths[c])).join(' | ');
const out = [];
out.push(`Heavy page: ${manifest.controls} controls, ${manifest.prose_bytes} B prose, ` +
         `${manifest.table_rows}-row table, ${manifest.shadow_widgets} widgets with shadow ` +
         `roots ${manifest.shadow_depth} deep (${manifest.html_bytes} B HTML), loopback HTTPS`);
out.push(`Machine: ${result.machine.cpus} CPUs, ${result.machine.cpu_model}, load average ` +
         `${result.machine.load_average_1_5_15_at_end.join(' ')} at the end`);
out.push('');
out.push(line(rows[0]));
out.push(widths.map((w) => '-'.repeat(w)).join('-+-'));
for (const r of rows.slice(1)) out.push(line(r));
out.push('');
out.push(`Target: our observe median <= 1/4 of ariaSnapshot's: ${ratio(observeRatio)} -> ` +
         held(targets.observe_median_at_most_quarter));
out.push(`Target: our projection <= 1/10 of ariaSnapshot's size: ${ratio(sizeRatio)} -> ` +
         held(targets.projection_at_most_tenth));
console.log(out.join('\n'));

// ---------------------------------------------------------------- README snippet
const md = [];
md.push('| heavy page, loopback | Veetbot | Playwright `ariaSnapshot({mode:"ai"})` | ratio |');
md.push('| --- | --- | --- | --- |');
md.push(`| Chromium | ${ours.chromium_version} (Qt WebEngine ${ours.qt_webengine_version}) | ` +
        `${theirs.browser_version} (playwright-core ${theirs.playwright_core_version}) | |`);
md.push(`| cold start to first observation | ${ms(cold.ours_from_process_start_ms)} | ` +
        `${ms(cold.playwright_from_process_start_ms)} | ${ratio(coldRatio)} |`);
md.push(`| in-session observe, median / p95 | ${ms(ours.observe.median_ms)} / ` +
        `${ms(ours.observe.p95_ms)} | ${ms(theirs.snapshot.median_ms)} / ` +
        `${ms(theirs.snapshot.p95_ms)} | ${ratio(observeRatio)} |`);
md.push(`| bytes the model receives | ${fw.projection_bytes.toLocaleString('en-US')} ` +
        `(projection, 16 KiB budget) | ${theirs.snapshot_size.utf8_bytes.toLocaleString('en-US')} | ` +
        `${ratio(sizeRatio)} |`);
md.push(`| full coverage | ${ours.walk_cursor.windows} windows by cursor, ` +
        `${ms(ours.walk_cursor.total_ms)}; ${ours.walk_projection.windows} by next_observe, ` +
        `${ms(ours.walk_projection.total_ms)} | one snapshot | |`);
console.log('\nREADME snippet (docs/benchmark.md explains the figures):\n');
console.log(`The observation benchmark (\`scripts/bench.sh\`, ${result.machine.cpus} CPUs, ` +
            `${result.generated_at.slice(0, 10)}): ${manifest.controls.toLocaleString('en-US')} ` +
            `controls, ${Math.round(manifest.prose_bytes / 1000)} KB of prose, a ` +
            `${manifest.table_rows}-row table and shadow roots ${manifest.shadow_depth} deep.\n`);
console.log(md.join('\n'));
console.log(`\nWritten: ${args.out}`);
