// What a crash loses: the product under an open loop of POST /api/event at --rate hits a
// second, killed with SIGKILL --kill-after seconds in; then the stopped store is opened and
// its events counted against the hits acknowledged (202 without X-Analytics-Dropped). The
// difference is what was buffered in memory, not yet written: the loss window that
// docs/operations.md documents, in hits and in seconds of traffic.
//
//   npm run build && node bench/kill-loss.mjs [--rate 2000] [--kill-after 6] [--rounds 3]
//     [--server-cpu 1] [--json]
//
// The load generator runs in this process; the server is pinned to --server-cpu.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openLoop } from "./collect-load.mjs";
import { createUser, createWebsite, ROOT_DIR, sleep, startProduct } from "./processes.mjs";

const { values: options } = parseArgs({
  options: {
    rate: { type: "string", default: "2000" },
    "kill-after": { type: "string", default: "6" },
    rounds: { type: "string", default: "3" },
    "server-cpu": { type: "string", default: "1" },
    json: { type: "boolean", default: false },
  },
});
const rate = Number(options.rate);
const killAfter = Number(options["kill-after"]);
const { DuckDbEventStore } = await import(
  path.join(ROOT_DIR, "dist/src/storage/duckdb/duckdb-event-store.js")
);

async function round(index) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-kill-"));
  try {
    const key = await createUser(dir);
    const server = await startProduct({ dataDir: dir, cpu: options["server-cpu"] });
    await createWebsite(server.url, key);
    const exited = new Promise((resolve) => server.child.once("exit", (_code, signal) => resolve(signal)));
    // The loop runs past the kill: requests after it fail, and are not acknowledged.
    const load = openLoop({ url: server.url, rate, duration: killAfter + 2, seed: index + 1 });
    await sleep(killAfter * 1000);
    server.child.kill("SIGKILL");
    const signal = await exited;
    const result = await load;
    const store = await DuckDbEventStore.open(dir);
    let stored;
    try {
      stored = await store.countEvents();
    } finally {
      await store.close();
    }
    const lost = result.accepted - stored;
    return {
      round: index + 1,
      rate,
      killedBy: signal,
      acknowledged: result.accepted,
      stored,
      lost,
      lostSeconds: Math.round((lost / rate) * 100) / 100,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < Number(options.rounds); i++) {
  const result = await round(i);
  results.push(result);
  if (!options.json) console.error(JSON.stringify(result));
}
if (options.json) console.log(JSON.stringify(results));
else {
  console.log("| round | rate (hits/s) | acknowledged | stored | lost | lost (s of traffic) |");
  console.log("|---|---|---|---|---|---|");
  for (const r of results)
    console.log(
      `| ${r.round} | ${r.rate} | ${r.acknowledged} | ${r.stored} | ${r.lost} | ${r.lostSeconds} |`,
    );
}
