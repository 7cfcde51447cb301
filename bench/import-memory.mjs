// The server's memory and CPU while it imports: starts `analytics serve` on a fresh data
// directory (unpinned), imports --events seeded events through POST /api/v1/events with
// bench/import-load.mjs (--prebuild, pinned to CPU 0), and prints one JSON line: the rate,
// the peak RSS and what made it up at that moment (anonymous and file-backed memory, and
// each thread's V8 heap, sampled every 50 ms by heap-sampler.cjs), and the CPU time of the
// main thread, of the busiest other thread (the import thread) and of all of them.
// --checkout DIR runs another checkout's build instead (built with `npm run build`), for
// A/B runs alternating with this one.
//
//   node bench/import-memory.mjs [--events 1000000] [--checkout DIR]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR } from "./processes.mjs";

const { values: options } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    checkout: { type: "string", default: path.dirname(BENCH_DIR) },
  },
});
const checkout = path.resolve(options.checkout);
// The checkout's own process helpers, so its server starts as that checkout starts it.
const { createUser, createWebsite, runCommand, startProduct, stop } = await import(
  path.join(checkout, "bench", "processes.mjs")
);

const samples = fs.mkdtempSync(path.join(os.tmpdir(), "import-memory-samples-"));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "import-memory-"));
const key = await createUser(dataDir);
const server = await startProduct({
  dataDir,
  cpu: null,
  env: {
    NODE_OPTIONS: `--require ${path.join(BENCH_DIR, "heap-sampler.cjs")}`,
    HEAP_SAMPLES_DIR: samples,
  },
});
const websiteId = await createWebsite(server.url, key);
const pid = server.child.pid;

const status = (field, text) =>
  Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) / 1024);
let peak = { rssMiB: 0 };
const sampler = setInterval(() => {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return;
  }
  const rssMiB = status("VmRSS", text);
  if (rssMiB <= peak.rssMiB) return;
  const heaps = {};
  for (const name of fs.readdirSync(samples)) {
    try {
      heaps[name.replace(/\.json$/, "")] = JSON.parse(fs.readFileSync(path.join(samples, name), "utf8"));
    } catch {
      // being written
    }
  }
  peak = { rssMiB, anonMiB: status("RssAnon", text), fileMiB: status("RssFile", text), heapsMiB: heaps };
}, 50);

const stdout = await runCommand(
  process.execPath,
  [
    path.join(checkout, "bench", "import-load.mjs"),
    ...["--url", server.url, "--key", key, "--website-id", String(websiteId)],
    ...["--events", options.events, "--prebuild", "--end", "2026-11-20T00:00:00Z"],
  ],
  { cpu: 0 },
);
clearInterval(sampler);
const load = JSON.parse(stdout.trim().split("\n").pop());

const cpu = { mainMs: 0, busiestOtherMs: 0, allMs: 0 };
const ticks = 100; // USER_HZ
for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
  } catch {
    continue;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  cpu.allMs += ms;
  if (Number(tid) === pid) cpu.mainMs = ms;
  else cpu.busiestOtherMs = Math.max(cpu.busiestOtherMs, ms);
}
await stop(server.child);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.rmSync(samples, { recursive: true, force: true });

const perEvent = (ms) => Number(((ms * 1000) / load.accepted).toFixed(2));
console.log(
  JSON.stringify({
    checkout,
    events: load.accepted,
    failures: load.failures.length,
    eventsPerSecond: load.eventsPerSecond,
    peak,
    cpuUsPerEvent: {
      all: perEvent(cpu.allMs),
      main: perEvent(cpu.mainMs),
      importThread: perEvent(cpu.busiestOtherMs),
    },
  }),
);
