// Loaded into the server by bench/import-memory.mjs (NODE_OPTIONS=--require, so every
// thread runs it): writes the thread's V8 heap and external memory, in MiB, to
// HEAP_SAMPLES_DIR/<thread>.json every 50 ms, for the benchmark to read at the peak.

const fs = require("node:fs");
const path = require("node:path");
const { isMainThread, threadId } = require("node:worker_threads");

const dir = process.env.HEAP_SAMPLES_DIR;
if (dir) {
  const file = path.join(dir, `${isMainThread ? "main" : `thread-${threadId}`}.json`);
  const mib = (bytes) => Math.round(bytes / 2 ** 20);
  setInterval(() => {
    const usage = process.memoryUsage();
    fs.writeFileSync(file, JSON.stringify({ heap: mib(usage.heapTotal), external: mib(usage.external) }));
  }, 50).unref();
}
