// Time zones as the statistics use them: the setting's validation, the offsets and their
// changes, local days of 23, 24 and 25 hours (changes at 02:00 and at midnight), zones with
// half- and quarter-hour offsets, and local dates and hours of instants.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { offeredZones, parseTimeZone, zoneRule } from "../src/stats/time-zone.js";
import { localClock } from "./support/reference-stats.js";

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** The local day's first instant and its length in hours. */
function localDay(zone: string, day: string): [string, number] {
  const rule = zoneRule(zone);
  const start = rule.dayStart(dayNumber(day));
  return [iso(start), (rule.dayStart(dayNumber(day) + 1) - start) / 3_600_000];
}

describe("time zones", () => {
  it("accepts IANA names in their canonical spelling and refuses anything else", () => {
    assert.deepEqual(parseTimeZone("europe/berlin", "timezone"), { ok: true, value: "Europe/Berlin" });
    assert.deepEqual(parseTimeZone("UTC", "timezone"), { ok: true, value: "UTC" });
    // Names newer than Intl's list, given in any case, spelt as the database spells them;
    // an old name Intl lists stays as given.
    for (const [given, stored] of [
      ["asia/kolkata", "Asia/Kolkata"],
      ["EUROPE/KYIV", "Europe/Kyiv"],
      ["asia/ho_chi_minh", "Asia/Ho_Chi_Minh"],
      ["america/argentina/buenos_aires", "America/Argentina/Buenos_Aires"],
      ["us/eastern", "US/Eastern"],
      ["asia/calcutta", "Asia/Calcutta"],
      // The fixed-offset zones, which neither list names.
      ["etc/gmt+5", "Etc/GMT+5"],
      ["ETC/GMT-14", "Etc/GMT-14"],
    ]) {
      assert.deepEqual(parseTimeZone(given as string, "timezone"), { ok: true, value: stored }, given);
    }
    for (const bad of ["Mars/Olympus", "+05:00", "", "UTC+1", "Europe/Berlin; DROP TABLE", "../etc"]) {
      const result = parseTimeZone(bad, "timezone");
      assert.equal(result.ok, false, bad);
      assert.match(result.ok ? "" : (result.errors[0] ?? ""), /timezone must be a time zone name/);
    }
  });

  it("offers each zone once, under its current name, UTC first", () => {
    const zones = offeredZones();
    assert.equal(zones[0], "UTC");
    assert.equal(new Set(zones).size, zones.length, "each once");
    for (const current of [
      "Asia/Kolkata",
      "Europe/Kyiv",
      "America/Nuuk",
      "Europe/Copenhagen",
      "Europe/Berlin",
    ])
      assert.ok(zones.includes(current), current);
    for (const old of ["Asia/Calcutta", "Europe/Kiev", "America/Godthab"])
      assert.ok(!zones.includes(old), old);
    for (const zone of zones)
      assert.deepEqual(parseTimeZone(zone, "timezone"), { ok: true, value: zone }, zone);
  });

  it("finds each change of offset to the second", () => {
    const berlin = zoneRule("Europe/Berlin");
    assert.deepEqual(
      berlin.segments(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)).map((s) => [iso(s.start), s.offset]),
      [
        ["2026-01-01T00:00:00.000Z", 3600],
        ["2026-03-29T01:00:00.000Z", 7200],
        ["2026-10-25T01:00:00.000Z", 3600],
      ],
    );
    assert.deepEqual(zoneRule("UTC").segments(0, Date.UTC(2030, 0, 1)), [{ start: 0, offset: 0 }]);
    assert.deepEqual(zoneRule("Asia/Kathmandu").segments(Date.UTC(2026, 0, 1), Date.UTC(2026, 6, 1)), [
      { start: Date.UTC(2026, 0, 1), offset: 20_700 },
    ]);
  });

  it("gives days of 23 and 25 hours where the clocks change, from the first instant showing the date", () => {
    assert.deepEqual(localDay("Europe/Berlin", "2026-03-28"), ["2026-03-27T23:00:00.000Z", 24]);
    assert.deepEqual(localDay("Europe/Berlin", "2026-03-29"), ["2026-03-28T23:00:00.000Z", 23]);
    assert.deepEqual(localDay("Europe/Berlin", "2026-10-25"), ["2026-10-24T22:00:00.000Z", 25]);
    assert.deepEqual(localDay("America/New_York", "2026-03-08"), ["2026-03-08T05:00:00.000Z", 23]);
    // Santiago changes at midnight: in September 00:00 becomes 01:00 (the day starts at
    // 01:00), in April 24:00 becomes 23:00 again (the day before has 25 hours).
    assert.deepEqual(localDay("America/Santiago", "2026-09-06"), ["2026-09-06T04:00:00.000Z", 23]);
    assert.deepEqual(localDay("America/Santiago", "2026-04-04"), ["2026-04-04T03:00:00.000Z", 25]);
    // Lord Howe Island moves by half an hour.
    assert.deepEqual(localDay("Australia/Lord_Howe", "2026-04-05")[1], 24.5);
    assert.deepEqual(localDay("UTC", "2026-03-29"), ["2026-03-29T00:00:00.000Z", 24]);
  });

  it("reads an instant's local date and hour", () => {
    const berlin = zoneRule("Europe/Berlin");
    assert.equal(berlin.dateOf(Date.parse("2026-03-28T22:59:59Z")), "2026-03-28");
    assert.equal(berlin.dateOf(Date.parse("2026-03-28T23:00:00Z")), "2026-03-29");
    assert.equal(berlin.hourOf(Date.parse("2026-03-29T00:59:59Z")), 1);
    assert.equal(berlin.hourOf(Date.parse("2026-03-29T01:00:00Z")), 3, "02:00 never comes");
    assert.equal(berlin.hourOf(Date.parse("2026-10-25T00:30:00Z")), 2);
    assert.equal(berlin.hourOf(Date.parse("2026-10-25T01:30:00Z")), 2, "02:00 comes twice");
    const kathmandu = zoneRule("Asia/Kathmandu");
    assert.equal(kathmandu.hourOf(Date.parse("2026-06-01T18:14:59Z")), 23);
    assert.equal(kathmandu.dateOf(Date.parse("2026-06-01T18:15:00Z")), "2026-06-02");
    assert.equal(zoneRule("Pacific/Kiritimati").dateOf(Date.parse("2026-06-01T10:00:00Z")), "2026-06-02");
    assert.equal(zoneRule("Pacific/Pago_Pago").dateOf(Date.parse("2026-06-01T10:00:00Z")), "2026-05-31");
    // The same answers in any order (dayOf keeps the last day it was asked for).
    for (const ts of [
      "2026-03-29T00:59:59Z",
      "2026-01-01T00:00:00Z",
      "2026-03-28T23:00:00Z",
      "2026-03-28T22:59:59Z",
    ]) {
      const expected = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date(ts));
      assert.equal(berlin.dateOf(Date.parse(ts)), expected, ts);
    }
  });

  it("agrees with Intl on every hour of a year in zones of every kind", () => {
    for (const zone of [
      "Europe/Berlin",
      "America/Santiago",
      "Australia/Lord_Howe",
      "Asia/Kolkata",
      "America/St_Johns",
    ]) {
      const rule = zoneRule(zone);
      const wallClock = localClock(zone);
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 1_800_000) {
        const { day: date, hour } = wallClock(new Date(ms));
        assert.equal(rule.dateOf(ms), date, `${zone} ${iso(ms)}`);
        assert.equal(rule.hourOf(ms), Number(hour), `${zone} ${iso(ms)}`);
        const start = rule.dayStart(dayNumber(date));
        assert.ok(
          start <= ms && ms < rule.dayStart(dayNumber(date) + 1),
          `${zone} ${iso(ms)} within its day`,
        );
      }
    }
  });
});
