// Runs one command of the observation benchmark (docs/benchmark.md) and samples its whole
// process tree: the peak of the summed resident set size of the command and every process
// descended from it (the browser's renderer, GPU and utility processes included), and the
// load average while it ran.
//
//   node bench/tree-rss.mjs --out FILE [--interval-ms 100] -- COMMAND [ARGS...]
//
// Linux only (/proc). Each sample reads /proc/*/stat once to find the tree and
// /proc/PID/statm of its members; resident pages shared between processes (libraries, shared
// memory) count once per process, the same way for both sides. The command's exit status is
// passed on; its stdout and stderr are left as they are.

import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const PAGE_BYTES = 4096; // x86-64 Linux base page size, the unit of /proc/PID/statm

function parseArgs(argv) {
  const args = { out: null, intervalMs: 100, command: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      args.command = argv.slice(i + 1);
      break;
    }
    if (argv[i] === '--out' && i + 1 < argv.length) args.out = argv[++i];
    else if (argv[i] === '--interval-ms' && i + 1 < argv.length)
      args.intervalMs = Number(argv[++i]);
    else throw new Error(`bad argument ${argv[i]}`);
  }
  if (!args.out || !args.command || args.command.length === 0)
    throw new Error('usage: tree-rss.mjs --out FILE [--interval-ms N] -- COMMAND [ARGS...]');
  if (!Number.isInteger(args.intervalMs) || args.intervalMs < 10)
    throw new Error('--interval-ms must be an integer of at least 10');
  return args;
}

// pid -> parent pid of every process visible now.
function parentsByPid() {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // Fields after the command name, which is in parentheses and may contain anything.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return parents;
}

function treeOf(rootPid, parents) {
  const children = new Map();
  for (const [pid, parent] of parents) {
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(pid);
  }
  const tree = [];
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    if (!parents.has(pid)) continue;
    tree.push(pid);
    for (const child of children.get(pid) ?? []) stack.push(child);
  }
  return tree;
}

function residentBytes(pid) {
  try {
    const statm = readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ');
    return Number(statm[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

const args = parseArgs(process.argv.slice(2));
const loadAtStart = os.loadavg();
const startedAt = performance.now();
const child = spawn(args.command[0], args.command.slice(1), { stdio: 'inherit' });

let peakBytes = 0;
let peakProcesses = 0;
let peakAtMs = 0;
let samples = 0;
let maxLoad1 = loadAtStart[0];
function sample() {
  const tree = treeOf(child.pid, parentsByPid());
  let bytes = 0;
  for (const pid of tree) bytes += residentBytes(pid);
  samples += 1;
  if (bytes > peakBytes) {
    peakBytes = bytes;
    peakAtMs = performance.now() - startedAt;
  }
  peakProcesses = Math.max(peakProcesses, tree.length);
  maxLoad1 = Math.max(maxLoad1, os.loadavg()[0]);
}
const timer = setInterval(sample, args.intervalMs);
sample();

child.on('exit', (code, signal) => {
  clearInterval(timer);
  const round = (v) => Math.round(v * 100) / 100;
  const result = {
    command: args.command[0],
    exit_code: code,
    signal,
    interval_ms: args.intervalMs,
    samples,
    peak_rss_bytes: peakBytes,
    peak_rss_mib: round(peakBytes / 1048576),
    peak_at_ms: round(peakAtMs),
    peak_processes: peakProcesses,
    duration_ms: round(performance.now() - startedAt),
    load_average_1m: { start: round(loadAtStart[0]), max: round(maxLoad1),
                       end: round(os.loadavg()[0]) },
  };
  writeFileSync(args.out, JSON.stringify(result, null, 2) + '\n');
  process.exit(code ?? 1);
});
