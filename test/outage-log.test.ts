// The outage log: why hits are not stored, said once when it starts, at most once a minute
// while it lasts (however often writes are retried), and when it ends.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type NoticeLevel, OutageLog } from "../src/ingest/outage-log.js";

describe("outage log", () => {
  it("says why once, then at most once a minute with what was kept and dropped, then that it is over", () => {
    const lines: { level: NoticeLevel; details: Record<string, unknown>; message: string }[] = [];
    let now = 0;
    const log = new OutageLog(
      (level, details, message) => lines.push({ level, details, message }),
      8_000,
      () => now,
    );
    const cause = new Error("No space left on device");
    // A write retried every second for three minutes, with a hit dropped each time.
    for (; now < 180_000; now += 1_000) {
      log.writeFailed(cause, 8_000);
      log.dropped();
    }
    log.recovered();
    assert.deepEqual(
      lines.map((line) => [line.level, line.message.split(":")[0]]),
      [
        ["error", "buffered hits cannot be written"],
        ["warn", "buffered hits still cannot be written"],
        ["warn", "buffered hits still cannot be written"],
        ["info", "buffered hits are written again; those kept meanwhile are stored"],
      ],
    );
    assert.equal(lines[0]?.details.err, cause, "the first line carries the cause");
    assert.match(lines[0]?.message ?? "", /up to 8000/);
    assert.deepEqual(lines[2]?.details.dropped, 120, "the hits dropped so far");
    assert.deepEqual(lines[3]?.details, { dropped: 180, downMs: 180_000 });
    log.recovered();
    assert.equal(lines.length, 4, "the end is said once");
  });

  it("says when the store fails, rate-limits failed attempts to open it again, and says when it is back", () => {
    const lines: string[] = [];
    let now = 0;
    const log = new OutageLog(
      (level, _details, message) => lines.push(`${level} ${message}`),
      8_000,
      () => now,
    );
    log.storeFailed(new Error("FATAL"), 0, 250);
    for (let attempt = 1; attempt <= 30; attempt++) {
      now += 5_000;
      log.storeFailed(new Error("FATAL"), attempt, 5_000);
    }
    log.storeReopened(31);
    assert.deepEqual(lines, [
      "error the event store failed; it is being opened again",
      "warn opening the event store again failed; retrying",
      "warn opening the event store again failed; retrying",
      "info the event store is open again",
    ]);
  });
});
