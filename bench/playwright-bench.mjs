// The Playwright side of the observation benchmark (docs/benchmark.md).
//
//   node bench/playwright-bench.mjs --url URL --resolve HOST=127.0.0.1 [--iterations 30]
//        [--chromium /usr/bin/chromium] [--out FILE] [--cold-start-only]
//
// Drives the pinned playwright-core (bench/package.json) with Debian's Chromium, headless,
// against the same loopback page as veetbot-bench-observe, and writes one JSON object:
// cold start (launch + goto + first snapshot), N in-session
// page.locator('body').ariaSnapshot({ mode: 'ai' }) calls (the snapshot Playwright MCP gives a
// model) and the snapshot's size.

import { performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const startedAtMs = performance.now(); // Node's time origin is the process start

function parseArgs(argv) {
  const args = { iterations: 30, chromium: '/usr/bin/chromium', out: null, url: null,
                 resolve: null, coldStartOnly: false };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--cold-start-only') {
      args.coldStartOnly = true;
      i -= 1;
      continue;
    }
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    args[key] = key === 'iterations' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.url) throw new Error('--url URL is required');
  if (!Number.isInteger(args.iterations) || args.iterations < 1)
    throw new Error('--iterations must be a positive integer');
  return args;
}

const round = (v) => Math.round(v * 100) / 100;

// Median (mean of the middle two for an even count) and nearest-rank p95, as the C++ side.
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return {
    n,
    median_ms: round(median),
    p95_ms: round(s[Math.ceil(0.95 * n) - 1]),
    min_ms: round(s[0]),
    max_ms: round(s[n - 1]),
    samples_sorted_ms: s.map(round),
  };
}

const INTERACTIVE = /^\s*- (button|link|textbox|checkbox|combobox|radio|searchbox|spinbutton|slider|switch)\b/;

function describe(snapshot) {
  const lines = snapshot.split('\n');
  return {
    chars: [...snapshot].length,
    utf16_units: snapshot.length,
    utf8_bytes: Buffer.byteLength(snapshot, 'utf8'),
    lines: lines.length,
    refs: (snapshot.match(/\[ref=/g) || []).length,
    interactive_nodes: lines.filter((line) => INTERACTIVE.test(line)).length,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(import.meta.url);
  const pwVersion = require('playwright-core/package.json').version;

  const launchArgs = ['--no-sandbox'];
  if (args.resolve) {
    const rules = args.resolve.split(',').map((entry) => {
      const [host, address] = entry.split('=');
      return `MAP ${host} ${address}`;
    });
    launchArgs.push(`--host-resolver-rules=${rules.join(',')}`);
  }

  const coldStart = performance.now();
  const { chromium } = await import('playwright-core');
  const imported = performance.now();
  const browser = await chromium.launch({
    executablePath: args.chromium,
    headless: true,
    chromiumSandbox: false,
    args: launchArgs,
  });
  const launched = performance.now();
  const context = await browser.newContext({
    ignoreHTTPSErrors: true, // the page's certificate ends in the bench's throw-away test CA
    viewport: { width: 1280, height: 800 }, // the WebEngineProvider view's size
  });
  const page = await context.newPage();
  const pageReady = performance.now();
  await page.goto(args.url, { waitUntil: 'load' });
  const loaded = performance.now();
  const body = page.locator('body');
  const first = await body.ariaSnapshot({ mode: 'ai' });
  const done = performance.now();

  const samples = [];
  let last = first;
  for (let i = 0; i < (args.coldStartOnly ? 0 : args.iterations); i++) {
    const t = performance.now();
    last = await body.ariaSnapshot({ mode: 'ai' });
    samples.push(performance.now() - t);
  }

  const result = {
    ok: true,
    playwright_core_version: pwVersion,
    browser_version: browser.version(),
    chromium: args.chromium,
    url: args.url,
    iterations: args.iterations,
    api: "page.locator('body').ariaSnapshot({ mode: 'ai' })",
    cold_start: {
      process_age_at_start_ms: round(coldStart),
      import_ms: round(imported - coldStart),
      launch_ms: round(launched - imported),
      context_and_page_ms: round(pageReady - launched),
      goto_load_ms: round(loaded - pageReady),
      first_snapshot_ms: round(done - loaded),
      // launch + goto + first snapshot, from before the import of playwright-core
      in_process_ms: round(done - coldStart),
      from_process_start_ms: round(done),
    },
    snapshot: args.coldStartOnly ? null : summary(samples),
    snapshot_size: describe(last),
    snapshot_stable: first === last,
    script_started_at_ms: round(startedAtMs),
  };
  await browser.close();
  const json = JSON.stringify(result, null, 2) + '\n';
  if (args.out) writeFileSync(args.out, json);
  else process.stdout.write(json);
}

main().catch((error) => {
  console.error(`playwright-bench: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
