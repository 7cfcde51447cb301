// Report periods in UTC: the last full week (Monday-Sunday) or month and the one before,
// the boundaries to the second, and when a report falls due (Monday or the 1st, 06:00).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastFullPeriod, latestDuePeriod, nextDueTime } from "../src/reports/report-period.js";

const at = (iso: string) => new Date(iso);

describe("report periods", () => {
  it("takes the last full Monday-Sunday week and the week before", () => {
    for (const now of ["2026-04-13T00:00:00Z", "2026-04-15T12:00:00Z", "2026-04-19T23:59:59Z"]) {
      assert.deepEqual(lastFullPeriod("week", at(now)), {
        kind: "week",
        key: "week:2026-04-06",
        current: { from: "2026-04-06", to: "2026-04-12" },
        previous: { from: "2026-03-30", to: "2026-04-05" },
        label: "2026-04-06 to 2026-04-12",
      });
    }
    assert.equal(lastFullPeriod("week", at("2026-04-12T23:59:59Z")).key, "week:2026-03-30");
  });

  it("takes the last full month and the month before, across years and in leap years", () => {
    assert.deepEqual(lastFullPeriod("month", at("2026-04-01T00:00:00Z")), {
      kind: "month",
      key: "month:2026-03",
      current: { from: "2026-03-01", to: "2026-03-31" },
      previous: { from: "2026-02-01", to: "2026-02-28" },
      label: "March 2026",
    });
    assert.equal(lastFullPeriod("month", at("2026-03-31T23:59:59Z")).key, "month:2026-02");
    const january = lastFullPeriod("month", at("2027-01-15T08:00:00Z"));
    assert.deepEqual(
      [january.current, january.previous],
      [
        { from: "2026-12-01", to: "2026-12-31" },
        { from: "2026-11-01", to: "2026-11-30" },
      ],
    );
    const february = lastFullPeriod("month", at("2028-03-02T00:00:00Z"));
    assert.equal(february.current.to, "2028-02-29");
    assert.equal(february.previous.from, "2028-01-01");
    assert.equal(lastFullPeriod("month", at("2027-02-01T06:00:00Z")).previous.to, "2026-12-31");
  });

  it("is due at 06:00 UTC on Monday or the 1st", () => {
    assert.equal(latestDuePeriod("week", at("2026-04-13T05:59:59Z")).key, "week:2026-03-30");
    assert.equal(latestDuePeriod("week", at("2026-04-13T06:00:00Z")).key, "week:2026-04-06");
    assert.equal(latestDuePeriod("week", at("2026-04-19T23:00:00Z")).key, "week:2026-04-06");
    assert.equal(latestDuePeriod("month", at("2026-05-01T05:59:59Z")).key, "month:2026-03");
    assert.equal(latestDuePeriod("month", at("2026-05-01T06:00:00Z")).key, "month:2026-04");

    assert.deepEqual(nextDueTime("week", at("2026-04-13T05:59:59Z")), at("2026-04-13T06:00:00Z"));
    assert.deepEqual(nextDueTime("week", at("2026-04-13T06:00:00Z")), at("2026-04-20T06:00:00Z"));
    assert.deepEqual(nextDueTime("week", at("2026-04-15T10:00:00Z")), at("2026-04-20T06:00:00Z"));
    assert.deepEqual(nextDueTime("month", at("2026-12-20T10:00:00Z")), at("2027-01-01T06:00:00Z"));
    assert.deepEqual(nextDueTime("month", at("2026-05-01T05:00:00Z")), at("2026-05-01T06:00:00Z"));
  });
});
