// Events moved between threads as columns (event-columns.ts) come back exactly as they went.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventColumnsBuilder, fromColumns } from "../src/storage/event-columns.js";
import { EVENT_TEXT_FIELDS, type StoredEvent } from "../src/storage/ports.js";

const base: StoredEvent = {
  websiteId: 7,
  ts: new Date("2026-05-09T23:59:59.123Z"),
  visitor: 18_446_744_073_709_551_615n,
  kind: "pageview",
  isVisit: true,
  page: "/docs",
  referrer: "news.ycombinator.com",
  campaign: "launch",
  browser: "Firefox",
  os: "Linux",
  device: "desktop",
  resolution: "1920x1080",
  language: "fr",
  country: "CH:Switzerland",
  city: "CH:Zürich",
  continent: "EU:Europe",
  event: "",
};

/** The columns of `events`, as the import thread builds them. */
function toColumns(events: readonly StoredEvent[]) {
  const builder = new EventColumnsBuilder(events.length);
  for (const event of events) builder.add(event);
  return builder.build();
}

describe("event columns", () => {
  it("round-trips every field of every event, in order", () => {
    const events: StoredEvent[] = [
      base,
      { ...base, websiteId: 8, visitor: 1n, kind: "event", isVisit: false, event: "Download:3:files" },
      { ...base, ts: new Date(0), page: "/", referrer: "", campaign: "", city: "" },
      { ...base, page: "/docs", language: "日本語", browser: "Firefox" },
    ];
    const { columns, transfer } = toColumns(events);
    assert.deepEqual(fromColumns(structuredClone(columns, { transfer })), events);
    // Each distinct text is kept once.
    assert.deepEqual(columns.texts[EVENT_TEXT_FIELDS.indexOf("page")]?.values, ["/docs", "/"]);
  });

  it("reads back each text field as itself (the decoder follows EVENT_TEXT_FIELDS)", () => {
    const distinct = Object.fromEntries(EVENT_TEXT_FIELDS.map((field) => [field, `${field}-value`]));
    const event = { ...base, ...distinct } as StoredEvent;
    const [back] = fromColumns(toColumns([event]).columns);
    for (const field of EVENT_TEXT_FIELDS) assert.equal(back?.[field], `${field}-value`, field);
  });

  it("handles an empty batch", () => {
    assert.deepEqual(fromColumns(toColumns([]).columns), []);
  });

  it("builds columns as long as the events added, however many there was room for", () => {
    const builder = new EventColumnsBuilder(3);
    builder.add(base);
    builder.add({ ...base, page: "/" });
    const { columns, transfer } = builder.build();
    assert.equal(columns.count, 2);
    assert.equal(columns.times.length, 2);
    assert.ok(transfer.every((buffer) => buffer.byteLength <= 2 * 8));
    assert.deepEqual(fromColumns(columns), [base, { ...base, page: "/" }]);
    builder.add(base);
    assert.throws(() => builder.add(base), /more than 3 events/);
  });
});
