// Run as a process of its own (`node fill-store-log.js DATA_DIR BYTES`): writes events
// into the embedded event store until its log holds nearly BYTES, prints how many, then
// dies without closing the store, as a crash would (a clean close checkpoints, which
// empties the log). A test thus gets a store whose next checkpoint needs that much room.
// The events are of days in 2100: a server's upkeep folds only days that ended, so nothing
// but the test's hits writes to the log after it. (With days of 2020, the upkeep's folds
// wrote to the log too, and whether the disk filled in the log or at the checkpoint
// depended on which came first.)

import fs from "node:fs";
import path from "node:path";
import { DuckDbEventStore } from "../../src/storage/duckdb/duckdb-event-store.js";
import { columnsOf } from "../../src/storage/event-columns.js";
import type { StoredEvent } from "../../src/storage/ports.js";

/** A pageview of a day no upkeep folds, with a long page, so the log fills fast. */
function fillerEvent(i: number): StoredEvent {
  return {
    websiteId: 1,
    ts: new Date(Date.UTC(2100, 0, 1 + (i % 28), 0, 0, i % 3600)),
    visitor: BigInt(i),
    kind: "pageview",
    isVisit: true,
    page: `/archive/${i}/${"x".repeat(200)}`,
    referrer: "",
    campaign: "",
    browser: "Safari",
    os: "macOS",
    device: "desktop",
    resolution: "",
    language: "en",
    country: "",
    city: "",
    continent: "",
    event: "",
  };
}

const [dataDir = "", target = "0"] = process.argv.slice(2);
const log = path.join(dataDir, "events.duckdb.wal");
const size = () => (fs.existsSync(log) ? fs.statSync(log).size : 0);
// No upkeep meanwhile: only the inserts write to the log.
const store = await DuckDbEventStore.open(dataDir, { upkeep: false });
await store.migrate();
let written = 0;
let step = 0;
// Two steps short of the target: DuckDB checkpoints by itself past its threshold.
while (size() + 2 * step < Number(target)) {
  const before = size();
  await store.insert(columnsOf(Array.from({ length: 1_000 }, (_, i) => fillerEvent(written + i))));
  written += 1_000;
  step = Math.max(step, size() - before);
}
fs.writeSync(1, String(written));
process.kill(process.pid, "SIGKILL");
