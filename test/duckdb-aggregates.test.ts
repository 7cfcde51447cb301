// The embedded store's aggregates against its raw events: random traffic in random batch
// sizes over several weeks, across restarts, days folded at random moments and written again
// after their fold (imports into the past), must give exactly the answers of the same store
// with every day counted from raw events, of the rebuild, and of single days summed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import zlib from "node:zlib";
import { ManualClock } from "../src/clock.js";
import { STATS, type StatDefinition, statByName } from "../src/stats/catalog.js";
import { parseFilters } from "../src/stats/stats-filter.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import { columnsOf } from "../src/storage/event-columns.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { storeFileSql } from "./support/duckdb-file.js";
import { pick, random, randomEvents } from "./support/seeded-random.js";
import { BATCH_VARIANTS, EVERY_ROW } from "./support/stat-answers.js";
import { storedEvents } from "./support/stored-events.js";
import { tempDir } from "./support/test-app.js";

/** Random events over `days` days from `start`, from a pool of 40 visitors. */
function randomEventsOf(next: () => number, count: number, start: number, days = 3): StoredEvent[] {
  return randomEvents(next, count, { start, days, visitor: () => BigInt(Math.floor(next() * 40)) });
}

const QUERY = EVERY_ROW;
/** What a query asks besides its window and filters: every row by count. */
const { filters: _filters, zone: _zone, ...PAGE } = EVERY_ROW;

/** Windows over 2026-06-10 to 2026-07-03: all of it, a fortnight, a single day, days cut anywhere. */
const WINDOWS = [
  ["2026-01-01", "2026-12-31"],
  ["2026-06-11", "2026-06-25"],
  ["2026-06-22", "2026-06-22"],
  ["2026-06-17", "2026-06-26"],
] as const;

async function answers(
  store: DuckDbEventStore,
  websiteId: number,
  windows: readonly (readonly [string, string])[],
) {
  const result: Record<string, unknown> = {};
  for (const stat of STATS) {
    for (const [from, to] of windows) {
      result[`${stat.name} ${from} ${to}`] = await store.queryStat({ ...QUERY, websiteId, stat, from, to });
    }
  }
  return result;
}

/** How many of the store's (closed) days are folded, and how many are not. */
async function foldedDays(dir: string): Promise<{ folded: number; open: number }> {
  const [row = {}] = await storeFileSql(
    dir,
    "SELECT count(*) FILTER (WHERE folded) AS folded, count(*) FILTER (WHERE NOT folded) AS open FROM event_days",
    { readOnly: true },
  );
  return { folded: Number(row.folded), open: Number(row.open) };
}

/**
 * Each window's answer recomputed from single-day answers: every statistic's count over a
 * window is the sum of its daily counts.
 */
async function summedFromDays(
  store: DuckDbEventStore,
  websiteId: number,
  windows: readonly (readonly [string, string])[],
) {
  const result: Record<string, unknown> = {};
  for (const stat of STATS) {
    const daily = new Map<string, { value: string; count: number }[]>();
    for (const [from, to] of windows) {
      const sums = new Map<string, number>();
      for (
        let day = Date.parse(from);
        day <= Math.min(Date.parse(to), Date.UTC(2026, 6, 10));
        day += 86_400_000
      ) {
        if (day < Date.UTC(2026, 5, 1)) continue; // no traffic before June
        const date = new Date(day).toISOString().slice(0, 10);
        if (!daily.has(date)) {
          const page = await store.queryStat({ ...QUERY, websiteId, stat, from: date, to: date });
          daily.set(date, page.rows);
        }
        for (const row of daily.get(date) ?? []) sums.set(row.value, (sums.get(row.value) ?? 0) + row.count);
      }
      const rows = [...sums]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
      result[`${stat.name} ${from} ${to}`] = { rows, total: rows.length };
    }
  }
  return result;
}

describe("embedded store aggregates", () => {
  for (const seed of [1, 2, 3]) {
    it(`folded days answer as their raw events, across batches, restarts and late writes (seed ${seed})`, async () => {
      const dir = tempDir("analytics-aggregates-");
      const start = Date.UTC(2026, 5, 10);
      const days = 24;
      const clock = new ManualClock(new Date(start + (days - 0.5) * 86_400_000));
      const next = random(seed);
      // Seed 3 folds each day's visits in parts of at most 40 events (a day here has about
      // 100-200), and stores each folded day in page order, as a large day is folded
      // (FOLD_PART_EVENTS and PAGE_ORDER_EVENTS in duckdb-event-store.ts).
      const options = {
        clock,
        upkeep: false,
        ...(seed === 3 ? { foldPartEvents: 40, pageOrderEvents: 1 } : {}),
      };
      let store = await DuckDbEventStore.open(dir, options);
      try {
        await store.migrate();
        let sent = 0;
        for (let round = 0; round < 8; round++) {
          const size = 1 + Math.floor(next() * 600);
          await store.insert(columnsOf(randomEventsOf(next, size, start, days)));
          sent += size;
          // Days written by earlier rounds are folded now and then; later rounds write into
          // folded days again, which opens them until the next fold.
          if (next() < 0.5) {
            clock.advance(11_000);
            await store.upkeep();
          }
          if (round === 2 || round === 5) {
            await store.close();
            store = await DuckDbEventStore.open(dir, options);
          }
        }
        // Late writes into the first days only, after a fold: those days open, the rest folded.
        clock.advance(11_000);
        await store.upkeep();
        const late = randomEventsOf(next, 50, start, 4);
        await store.insert(columnsOf(late));
        sent += late.length;
        assert.equal(await store.countEvents(), sent);
        const mixedAnswers = [await answers(store, 1, WINDOWS), await answers(store, 2, WINDOWS)];
        await store.close();
        const mixed = await foldedDays(dir);
        store = await DuckDbEventStore.open(dir, options);
        assert.deepEqual(mixedAnswers[0], await summedFromDays(store, 1, WINDOWS));
        clock.advance(11_000);
        await store.upkeep();
        const folded = [await answers(store, 1, WINDOWS), await answers(store, 2, WINDOWS)];
        await store.close();
        const after = await foldedDays(dir);
        assert.ok(
          mixed.folded > 0 && mixed.open > 0,
          `some days folded, some open: ${JSON.stringify(mixed)}`,
        );
        // Every day but today (which has not ended) is folded now.
        assert.deepEqual(after, { folded: mixed.folded + mixed.open - 2, open: 2 });
        assert.ok(mixed.open > 2 && mixed.open < 12, `the late days open: ${JSON.stringify(mixed)}`);
        store = await DuckDbEventStore.open(dir, options);
        assert.deepEqual(folded, mixedAnswers);
        await store.rebuildAggregates(1);
        assert.deepEqual(await answers(store, 1, WINDOWS), mixedAnswers[0]);
        await store.rebuildAggregates();
        assert.deepEqual([await answers(store, 1, WINDOWS), await answers(store, 2, WINDOWS)], mixedAnswers);
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  // As after a change of time zone or a large import: many days, all open; or a large
  // website's today. Counted in one statement, the exit pages of these 200,000 events need
  // more than DuckDB's 40 MB here (about 64 MB; 20,000 events at a time pass from 32 MB).
  for (const { days, how } of [
    { days: 10, how: "many open days a day at a time" },
    { days: 1, how: "an open day too large for one statement a slice of its visitors at a time" },
  ])
    it(`counts the visits of ${how}, within the memory one part needs`, async () => {
      const dir = tempDir("analytics-aggregates-");
      const start = Date.UTC(2026, 5, 1);
      const clock = new ManualClock(new Date(start + 20 * 86_400_000));
      const next = random(11);
      const options = { clock, upkeep: false, foldPartEvents: 10_000, memoryLimit: "40MB" };
      let store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
      const window = { from: "2026-06-01", to: "2026-06-10" };
      const visitStats = STATS.filter((stat) => stat.rows === "visits");
      // Unfiltered, on an event's page, and on the visitor's attributes alone (read another way).
      const filterSets = ["", "page~/docs/12", "browser==Chrome"].map((text) => {
        const parsed = text === "" ? { filters: [] } : parseFilters(text);
        assert.ok("filters" in parsed);
        return parsed.filters;
      });
      const read = async () =>
        Promise.all(
          filterSets.map(async (filters) => ({
            stats: await Promise.all(
              visitStats.map((stat) => store.queryStat({ ...QUERY, filters, websiteId: 1, stat, ...window })),
            ),
            days: await store.queryDays({
              websiteId: 1,
              zone: "UTC",
              filters,
              stats: visitStats.filter((stat) => stat.dimension === "day"),
              ...window,
            }),
          })),
        );
      try {
        await store.migrate();
        // 200,000 events of one website, over 5,000 pages of long addresses (the exit pages
        // hold them), of 20,000 visitors.
        for (let batch = 0; batch < 4; batch++) {
          const visitor = () => BigInt(Math.floor(next() * 20_000));
          const events = randomEvents(next, 50_000, { start, days, visitor });
          await store.insert(
            columnsOf(
              events.map((event) => ({
                ...event,
                websiteId: 1,
                page: `/docs/${Math.floor(next() * 5_000)}/${"chapter-".repeat(6)}`,
              })),
            ),
          );
        }
        // And a website with custom events alone: many open days' events, and no visit.
        const events = randomEvents(next, 20_000, { start, days, visitor: () => 1n });
        await store.insert(columnsOf(events.map((event) => ({ ...event, websiteId: 3, kind: "event" }))));
        await store.close();
        store = await DuckDbEventStore.open(dir, options);
        assert.equal((await foldedDays(dir)).folded, 0, "every day open");
        const open = await read();
        assert.ok(open.every((set) => set.stats.every((page) => page.total > 0)));
        for (const stat of visitStats) {
          const none = await store.queryStat({ ...QUERY, websiteId: 3, stat, ...window });
          assert.deepEqual(none, { rows: [], total: 0 }, `${stat.name} of a website without visits`);
        }
        clock.advance(11_000);
        await store.upkeep();
        await store.close();
        assert.deepEqual(await foldedDays(dir), { folded: 2 * days, open: 0 }, "every day folded");
        store = await DuckDbEventStore.open(dir, options);
        assert.deepEqual(await read(), open, "the same answers from the folded days");
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

  for (const zone of ["UTC", "America/New_York"]) {
    it(`keeps the visits of today and of a day written again, and finds those of the visitors written since (${zone})`, async () => {
      // Against a store never upkept, which finds every visit from the events.
      const dirs = [tempDir("analytics-aggregates-"), tempDir("analytics-aggregates-")];
      const day = 86_400_000;
      const start = Date.UTC(2026, 5, 10);
      // 2026-06-12 20:00 UTC; in New York 16:00 of the same day.
      const clock = new ManualClock(new Date(start + 2 * day + 20 * 3_600_000));
      const next = random(23);
      const visitors = Array.from({ length: 50 }, (_, i) => BigInt(i + 1));
      const visitor = () => pick(next, visitors);
      // Most visitors' days steady (one browser, place...), some mixed.
      const mixed = 0.05;
      // A filter on the visitor's attributes (matched by the kept visits' own) and one on
      // the events' (the visits holding a matching event).
      const byBrowser = parseFilters("browser==Chrome");
      const byPage = parseFilters("page==/a");
      assert.ok("filters" in byBrowser && "filters" in byPage);
      const filterSets = { none: [], browser: byBrowser.filters, page: byPage.filters };
      const [kept, fromEvents] = [0, 1];
      // In New York the kept store finds visits 100 events at a time: its changes are then
      // too many for one statement, so each round counts today again whole, as a fold does,
      // and the reads count it from its events (the store's reader holds no set of them).
      const open = (i: number) =>
        DuckDbEventStore.open(dirs[i] as string, {
          clock,
          upkeep: false,
          ...(zone !== "UTC" && i === kept ? { foldPartEvents: 100 } : {}),
        });
      let stores = await Promise.all(dirs.map((_, i) => open(i)));
      const write = (events: StoredEvent[]) =>
        Promise.all(stores.map((store) => store.insert(columnsOf(events))));
      const reopen = async () => {
        await Promise.all(stores.map((store) => store.close()));
        stores = await Promise.all(dirs.map((_, i) => open(i)));
      };
      const all = async (store: DuckDbEventStore) => {
        const result: Record<string, unknown> = {};
        for (const [from, to] of [
          ["2026-06-10", "2026-06-12"],
          ["2026-06-12", "2026-06-12"],
          ["2026-06-11", "2026-06-12"],
          ["2026-06-09", "2026-06-12"],
        ] as const) {
          for (const [named, filters] of Object.entries(filterSets)) {
            for (const stat of STATS)
              result[`${stat.name} ${from} ${to} ${named}`] = await store.queryStat({
                ...QUERY,
                websiteId: 1,
                zone,
                stat,
                from,
                to,
                filters,
              });
            // Read as a batch (a dashboard's lists), each as read alone: under the page's
            // filter, the lists of visitors and the hours from one table of the visitors'
            // days; unfiltered, every statistic in one statement from the folded and kept
            // days (the other filters' batches are read one at a time).
            if (named !== "browser") {
              const stats =
                named === "page"
                  ? STATS.filter((stat) => stat.measure === "visitors" && stat.dimension !== "day")
                  : STATS;
              const pages = stats.map((stat) => ({ ...PAGE, stat }));
              const batch = await store.queryStats({ websiteId: 1, zone, from, to, filters, pages });
              stats.forEach((stat, i) => {
                const key = `${stat.name} ${from} ${to} ${named}`;
                assert.deepEqual(batch[i], result[key], `${key}, read in a batch`);
              });
              // Unfiltered over the kept and folded days (one statement), each statistic also
              // paged, sorted and searched another way (a page past the end among them), as
              // a single read gives it. (In New York the reader holds no set of today's
              // changes here, and a batch reads one statistic at a time.)
              if (named === "none" && from === "2026-06-10" && zone === "UTC") {
                const paged = stats.map((stat, i) => ({
                  ...(BATCH_VARIANTS[i % BATCH_VARIANTS.length] as (typeof BATCH_VARIANTS)[number]),
                  stat,
                }));
                const read = await store.queryStats({ websiteId: 1, zone, from, to, filters, pages: paged });
                for (const [i, page] of paged.entries())
                  assert.deepEqual(
                    read[i],
                    await store.queryStat({ websiteId: 1, zone, from, to, filters, ...page }),
                    `${page.stat.name} ${from} ${to} ${named} ${JSON.stringify(page)}, in a batch`,
                  );
              }
            }
            result[`days ${from} ${to} ${named}`] = await store.queryDays({
              websiteId: 1,
              zone,
              filters,
              stats: STATS.filter((stat) => stat.dimension === "day"),
              from,
              to,
            });
            // A dashboard's series: no visit statistic.
            result[`series ${from} ${to} ${named}`] = await store.queryDays({
              websiteId: 1,
              zone,
              filters,
              stats: STATS.filter((stat) => stat.name === "visitors" || stat.name === "pageviews"),
              from,
              to,
            });
          }
        }
        return result;
      };
      // Every day written (in New York the first hours of 10 June are 9 June's).
      const keptDays = `${zone === "UTC" ? "" : "2026-06-09 "}2026-06-10 2026-06-11 2026-06-12`;
      const keptRows = async () => {
        const [row = {}] = await storeFileSql(
          dirs[kept] as string,
          `SELECT (SELECT string_agg(strftime(day, '%Y-%m-%d'), ' ' ORDER BY day) FROM visit_days WHERE website_id = 1) AS days,
             (SELECT count(*) FROM visitor_changes WHERE website_id = 1 AND day <= DATE '2026-06-12') AS changes`,
          { readOnly: true },
        );
        return { days: String(row.days), changes: Number(row.changes) };
      };
      try {
        for (const store of stores) {
          await store.migrate();
          await store.setZone(1, zone);
        }
        // Today's events up to now (from 04:00 UTC, today in both zones), the days before.
        const today = start + 2 * day + 4 * 3_600_000;
        await write(randomEvents(next, 700, { start, days: 2, visitor, mixed }));
        await write(randomEvents(next, 300, { start: today, days: 0.6, visitor, mixed }));
        // And a day to come (a clock set wrong), which is not kept: no traffic to keep it for.
        await write(randomEvents(next, 5, { start: start + 4 * day, days: 0.5, visitor, mixed }));
        clock.advance(11_000);
        await stores[kept]?.upkeep();
        await reopen();
        assert.deepEqual(await keptRows(), { days: keptDays, changes: 0 });
        const [visitorDays = {}] = await storeFileSql(
          dirs[kept] as string,
          `SELECT count(*) FILTER (first_of_day AND NOT mixed) AS steady, count(*) FILTER (mixed) AS mixed
           FROM day_visits WHERE website_id = 1 AND day = DATE '2026-06-12'`,
          { readOnly: true },
        );
        assert.ok(
          Number(visitorDays.steady) > 0 && Number(visitorDays.mixed) > 0,
          `steady days ${visitorDays.steady}, mixed ${visitorDays.mixed}`,
        );
        // Today again (visits of the same visitors extended, split, and new visitors), the
        // day before, folded, written again, and a day never written before, open and not
        // kept beside the kept ones (an import's, say).
        await write(randomEvents(next, 150, { start: today, days: 0.66, visitor, mixed }));
        await write(randomEvents(next, 40, { start: start + day, days: 1, visitor, mixed }));
        await write(randomEvents(next, 30, { start: start - day + 3_600_000, days: 0.9, visitor, mixed }));
        const expected = await all(stores[fromEvents] as DuckDbEventStore);
        assert.deepEqual(
          await all(stores[kept] as DuckDbEventStore),
          expected,
          "kept visits and changed visitors",
        );
        await reopen();
        assert.ok((await keptRows()).changes > 0, "visitors changed since");
        clock.advance(11_000);
        await stores[kept]?.upkeep();
        assert.deepEqual(await all(stores[kept] as DuckDbEventStore), expected, "the changes found");
        await reopen();
        // The new day folded too (in New York it began on 8 June).
        const laterDays = `${zone === "UTC" ? "" : "2026-06-08 "}2026-06-09 2026-06-10 2026-06-11 2026-06-12`;
        assert.deepEqual(await keptRows(), { days: laterDays, changes: 0 });
        const [todayCounts = {}] = await storeFileSql(
          dirs[kept] as string,
          "SELECT count(*) AS n FROM daily_stats WHERE website_id = 1 AND day = DATE '2026-06-12'",
          { readOnly: true },
        );
        assert.ok(Number(todayCounts.n) > 0, "today's counts kept");
        // Today written again after a restart: its counts kept at the last round, and what
        // the events since change added; then kept again.
        await write(randomEvents(next, 120, { start: today, days: 0.66, visitor, mixed }));
        const again = await all(stores[fromEvents] as DuckDbEventStore);
        assert.notDeepEqual(again, expected);
        assert.deepEqual(
          await all(stores[kept] as DuckDbEventStore),
          again,
          "kept counts and the events since",
        );
        clock.advance(11_000);
        await stores[kept]?.upkeep();
        assert.deepEqual(await all(stores[kept] as DuckDbEventStore), again, "the changes kept");
        assert.deepEqual(await keptRows(), { days: laterDays, changes: 0 });
        // Written again, without a restart: the changes the reader found for the reads above
        // are out of date, and found again.
        await write(randomEvents(next, 60, { start: today, days: 0.66, visitor, mixed }));
        const written = await all(stores[fromEvents] as DuckDbEventStore);
        assert.deepEqual(await all(stores[kept] as DuckDbEventStore), written, "the changes found again");
        // Changes counted from a round a statement no longer sees add nothing to it (as when
        // an upkeep round commits between their finding and the statement): the reader's
        // changes of the reads above, taken for current by hand after a round, count twice
        // otherwise.
        const writes = stores[kept] as unknown as { writes: number };
        const found = writes.writes;
        clock.advance(11_000);
        await stores[kept]?.upkeep();
        writes.writes = found;
        assert.deepEqual(await all(stores[kept] as DuckDbEventStore), written, "older changes add nothing");
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("keeps events from before 1970 that an earlier version took, unfolded, and folds every other day", async () => {
    // Imports refuse them now (event-importer.ts); one such event once failed every fold and
    // `aggregates rebuild` (its visit's start is unsigned seconds since 1970).
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    const base = randomEventsOf(random(5), 1, 0)[0] as StoredEvent;
    const hit = (ts: string): StoredEvent => ({ ...base, websiteId: 1, kind: "pageview", ts: new Date(ts) });
    const store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
    let closed = false;
    try {
      await store.migrate();
      const times = [
        "0001-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "1970-01-01T02:00:00Z",
        "2026-07-09T10:00:00Z",
      ];
      await store.insert(columnsOf(times.map(hit)));
      clock.advance(11_000);
      await store.upkeep();
      await store.rebuildAggregates();
      await store.rebuildAggregates(1);
      assert.equal(await store.countEvents(), 4, "every event kept");
      const pageviews = async (from: string, to: string) =>
        (await store.queryStat({ ...QUERY, websiteId: 1, stat: STATS[0], from, to })).rows;
      assert.deepEqual(await pageviews("1970-01-01", "1970-01-01"), [{ value: "1970-01-01", count: 1 }]);
      assert.deepEqual(await pageviews("2026-07-09", "2026-07-09"), [{ value: "2026-07-09", count: 1 }]);
      await store.close();
      closed = true;
      assert.deepEqual(await foldedDays(dir), { folded: 2, open: 2 }, "the days before 1970 left as written");
    } finally {
      if (!closed) await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("folds the newest days first, which dashboards and reports read most", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    const folded: string[] = [];
    const onDayFolded = (websiteId: number, day: string) => folded.push(`${day} ${websiteId}`);
    const store = await DuckDbEventStore.open(dir, { clock, upkeep: false, onDayFolded });
    try {
      await store.migrate();
      await store.insert(columnsOf(randomEventsOf(random(8), 300, Date.UTC(2026, 6, 1), 8)));
      clock.advance(11_000);
      await store.upkeep();
      const days = ["08", "07", "06", "05", "04", "03", "02", "01"].flatMap((day) =>
        [1, 2].map((website) => `2026-07-${day} ${website}`),
      );
      assert.deepEqual(folded, days);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("folds a day once it ended and went unwritten for ten seconds, and again after a late write", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    const base = randomEventsOf(random(5), 1, 0)[0] as StoredEvent;
    const hit = (ts: string): StoredEvent => ({ ...base, websiteId: 1, kind: "pageview", ts: new Date(ts) });
    const options = { clock, upkeep: false };
    let store = await DuckDbEventStore.open(dir, options);
    /** The days' fold state, read from the file between two opens of the store. */
    const state = async () => {
      await store.close();
      const days = await foldedDays(dir);
      store = await DuckDbEventStore.open(dir, options);
      return days;
    };
    const pageviews = async () =>
      (
        await store.queryStat({
          ...QUERY,
          websiteId: 1,
          stat: STATS[0],
          from: "2026-07-01",
          to: "2026-07-31",
        })
      ).rows;
    try {
      await store.migrate();
      await store.insert(columnsOf([hit("2026-07-09T10:00:00Z"), hit("2026-07-10T10:00:00Z")]));
      await store.upkeep();
      assert.deepEqual(await state(), { folded: 0, open: 2 }, "written a moment ago");
      clock.advance(11_000);
      await store.upkeep();
      assert.deepEqual(await state(), { folded: 1, open: 1 }, "yesterday folded, today not");
      assert.deepEqual(await pageviews(), [
        { value: "2026-07-09", count: 1 },
        { value: "2026-07-10", count: 1 },
      ]);
      await store.insert(columnsOf([hit("2026-07-09T11:00:00Z"), hit("2026-07-09T12:00:00Z")]));
      assert.deepEqual(await state(), { folded: 0, open: 2 }, "a late write opens the day again");
      assert.deepEqual(await pageviews(), [
        { value: "2026-07-09", count: 3 },
        { value: "2026-07-10", count: 1 },
      ]);
      clock.advance(11_000);
      await store.upkeep();
      assert.deepEqual(await state(), { folded: 1, open: 1 });
      // A write while the day's fold is under way (queued behind the fold's first step):
      // the fold finishes, but the day stays open, as the write came after what it read.
      clock.advance(11_000);
      await store.insert(columnsOf([hit("2026-07-09T13:00:00Z")]));
      clock.advance(11_000);
      const folding = store.upkeep();
      await new Promise((resolve) => setImmediate(resolve));
      await store.insert(columnsOf([hit("2026-07-09T14:00:00Z")]));
      await folding;
      assert.deepEqual(await state(), { folded: 0, open: 2 }, "written during its fold: still open");
      assert.deepEqual(await pageviews(), [
        { value: "2026-07-09", count: 5 },
        { value: "2026-07-10", count: 1 },
      ]);
      clock.advance(11_000);
      await store.upkeep();
      assert.deepEqual(await state(), { folded: 1, open: 1 });
      assert.deepEqual(await pageviews(), [
        { value: "2026-07-09", count: 5 },
        { value: "2026-07-10", count: 1 },
      ]);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stores a large folded day's events in page order, every event kept; a small day and an open day stay as written", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    // A day of 100 events or more counts as large here (PAGE_ORDER_EVENTS in
    // duckdb-event-store.ts): website 1's first day (about 150) is, website 2's (60) is not.
    const large = 100;
    const options = { clock, upkeep: false, pageOrderEvents: large };
    // Two days of one website in arrival order (pages and visitors shuffled), and a day of another.
    const events = [
      ...randomEventsOf(random(11), 300, Date.UTC(2026, 6, 9), 2).map((event) => ({
        ...event,
        websiteId: 1,
      })),
      ...randomEventsOf(random(12), 60, Date.UTC(2026, 6, 9), 1).map((event) => ({ ...event, websiteId: 2 })),
    ];
    /** Each stored event of a website as [day, page, visitor, second], in the order stored. */
    const stored = async (websiteId = 1) =>
      (
        await storeFileSql(
          dir,
          `SELECT strftime(ts, '%Y-%m-%d') AS day, page, visitor, epoch(ts) AS s FROM events WHERE website_id = ${websiteId} ORDER BY rowid`,
          { readOnly: true },
        )
      ).map((row) => [String(row.day), Number(row.page), Number(row.visitor), Number(row.s)]);
    /** Whether rows are in page, visitor and time order. */
    const inOrder = (rows: readonly (string | number)[][]) =>
      rows.every((row, i) => {
        const previous = rows[i - 1];
        if (previous === undefined) return true;
        const differs = [1, 2, 3].find((column) => previous[column] !== row[column]);
        return differs === undefined || (previous[differs] as number) < (row[differs] as number);
      });
    const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? String(value) : value);
    /** Every stored event, as exported, in a canonical order. */
    const exported = async (store: DuckDbEventStore) => {
      const all: string[] = [];
      for await (const batch of store.exportEvents())
        all.push(...batch.map((event) => JSON.stringify(event, replacer)));
      return all.sort();
    };
    let store = await DuckDbEventStore.open(dir, options);
    try {
      await store.migrate();
      await store.insert(columnsOf(events));
      const before = await exported(store);
      const answersBefore = await answers(store, 1, [["2026-07-09", "2026-07-10"]]);
      await store.close();
      const written = await stored();
      const ofDay = (day: string) => written.filter((row) => row[0] === day);
      assert.ok(!inOrder(ofDay("2026-07-09")), "the test's events arrive out of page order");
      assert.ok(ofDay("2026-07-09").length >= large, "website 1's first day is large");
      const small = await stored(2);
      assert.ok(small.length < large && !inOrder(small), "website 2's day is small, out of page order");
      store = await DuckDbEventStore.open(dir, options);
      clock.advance(11_000);
      await store.upkeep(); // folds 2026-07-09; 2026-07-10 has not ended
      assert.deepEqual(await exported(store), before, "every event kept as it was");
      assert.deepEqual(await answers(store, 1, [["2026-07-09", "2026-07-10"]]), answersBefore);
      await store.close();
      const after = await stored();
      const yesterday = after.filter((row) => row[0] === "2026-07-09");
      assert.equal(yesterday.length, ofDay("2026-07-09").length);
      assert.ok(inOrder(yesterday), "the folded day in page, visitor and time order");
      assert.deepEqual(
        after.filter((row) => row[0] === "2026-07-10"),
        ofDay("2026-07-10"),
        "the open day as written",
      );
      assert.deepEqual(await stored(2), small, "the small folded day as written");
      assert.deepEqual(await foldedDays(dir), { folded: 2, open: 1 }, "both websites' first days folded");
      store = await DuckDbEventStore.open(dir, options);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("closes while a fold is under way, leaving the rest of the day to the next start", {
    timeout: 60_000,
  }, async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    const options = { clock, upkeep: false };
    let store = await DuckDbEventStore.open(dir, options);
    try {
      await store.migrate();
      await store.insert(columnsOf(randomEventsOf(random(6), 500, Date.UTC(2026, 6, 1), 8)));
      clock.advance(11_000);
      const folding = store.upkeep();
      await new Promise((resolve) => setImmediate(resolve));
      await store.close(); // never returned when a fold's query ran on the connection it closed
      await folding;
      const days = await foldedDays(dir);
      assert.ok(days.open > 1, `the fold stopped: ${JSON.stringify(days)}`);
      store = await DuckDbEventStore.open(dir, options);
      const before = await answers(store, 1, [["2026-07-01", "2026-07-10"]]);
      await store.upkeep();
      assert.deepEqual(await answers(store, 1, [["2026-07-01", "2026-07-10"]]), before);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("upgrades a store the previous version wrote: the same answers, then folds and rebuilds as its events say", async () => {
    const dir = tempDir("analytics-aggregates-");
    const fixture = new URL("../../test/fixtures/store-v6/", import.meta.url);
    fs.writeFileSync(
      path.join(dir, "events.duckdb"),
      zlib.gunzipSync(fs.readFileSync(new URL("events.duckdb.gz", fixture))),
    );
    const recorded = JSON.parse(fs.readFileSync(new URL("answers.json", fixture), "utf8")) as {
      count: number;
      windows: [string, string][];
      answers: Record<string, unknown>;
    };
    const [before = {}] = await storeFileSql(
      dir,
      `SELECT (SELECT count(*) FROM daily_stats_deltas) AS deltas, (SELECT count(*) FROM daily_stats_recent) AS recent,
        (SELECT count(*) FROM weekly_stats) AS weekly`,
      { readOnly: true },
    );
    assert.ok(
      Object.values(before).every((n) => Number(n) > 0),
      `every tier holds rows: ${Object.values(before).join(", ")}`,
    );
    // The statistics of that version; the visit statistics came later.
    const all = async (stats: readonly StatDefinition[] = STATS.filter((stat) => stat.rows !== "visits")) => {
      const result: Record<string, unknown> = {};
      for (const websiteId of [1, 2]) {
        for (const stat of stats) {
          for (const [from, to] of recorded.windows) {
            result[`${websiteId} ${stat.name} ${from} ${to}`] = await store.queryStat({
              ...QUERY,
              websiteId,
              stat,
              from,
              to,
            });
          }
        }
      }
      return result;
    };
    // The fixture's "now" was its last day, 2026-06-30.
    const clock = new ManualClock("2026-06-30T20:00:00Z");
    let store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
    try {
      await store.migrate();
      assert.equal(await store.countEvents(), recorded.count);
      assert.deepEqual(await all(), recorded.answers, "the migrated aggregates answer as before");
      // Its days open again, so the visit statistics it never folded count from the events.
      const visits = await all(STATS.filter((stat) => stat.rows === "visits"));
      assert.ok(JSON.stringify(visits).includes('"count"'), "visits counted");
      await store.rebuildAggregates();
      assert.deepEqual(await all(), recorded.answers, "and as the rebuild from the events");
      assert.deepEqual(await all(STATS.filter((stat) => stat.rows === "visits")), visits, "visits too");
      // Visitors go on being numbered after the migrated ones: a hash the fixture stored
      // today (visitor_ids kept it) stays one visitor, a new one is one more.
      const visitors = async () =>
        (
          await store.queryStat({
            ...QUERY,
            websiteId: 1,
            stat: STATS[1],
            from: "2026-06-30",
            to: "2026-06-30",
          })
        ).rows;
      const [today] = await visitors();
      const known = (await storedEvents(store, 1)).find((e) => e.ts.toISOString().startsWith("2026-06-30"));
      assert.ok(today && known);
      const hash = (await exported(store)).find((e) => e.ts.getTime() === known.ts.getTime())?.visitor;
      assert.ok(hash !== undefined && hash < 1n << 32n, "today's visitors are exported as their hashes");
      await store.insert(
        columnsOf([
          { ...known, ts: new Date("2026-06-30T21:00:00Z"), visitor: hash },
          { ...known, ts: new Date("2026-06-30T21:00:01Z"), visitor: 1_000_000n },
        ]),
      );
      assert.deepEqual(await visitors(), [{ value: "2026-06-30", count: today.count + 1 }]);
      await store.close();
      const [after = {}] = await storeFileSql(
        dir,
        "SELECT list(table_name ORDER BY table_name) AS tables FROM duckdb_tables() WHERE table_name LIKE '%stats%'",
        { readOnly: true },
      );
      assert.deepEqual(after.tables, ["daily_stats"], "one aggregate table is left");
      store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  /** The folded visits as earlier versions kept them: their columns, and the versions that changed them since. */
  const OLDER_VISITS = [
    {
      what: "without the visitor's attributes",
      columns: "website_id, day, visitor, start, finish, until, pageviews, hour, exit_page",
      since: [10, 11, 12, 13],
    },
    {
      what: "without the hours of the visitor's day",
      columns:
        "website_id, day, visitor, start, finish, until, pageviews, hour, exit_page, mixed, browser, os, device, resolution, language, place, first_of_day",
      since: [11, 12, 13],
    },
    {
      what: "of a day kept open, without the rounds of its counts",
      columns: "*",
      since: [13],
    },
  ];
  for (const older of OLDER_VISITS) {
    it(`upgrades a store whose folds hold visits ${older.what}: the same answers, then folded with them`, async () => {
      const dir = tempDir("analytics-aggregates-");
      const start = Date.UTC(2026, 5, 10);
      const clock = new ManualClock(new Date(start + 5.5 * 86_400_000));
      const options = { clock, upkeep: false };
      const next = random(9);
      const visitors = Array.from({ length: 60 }, (_, i) => BigInt(i + 1));
      const filtered = parseFilters("browser==Chrome;country!=DE:Germany");
      assert.ok("filters" in filtered);
      /** Every statistic over the six days, unfiltered and filtered on the visitor's attributes. */
      const all = async () => {
        const result: Record<string, unknown> = {};
        for (const stat of STATS) {
          for (const filters of [[], filtered.filters]) {
            result[`${stat.name} ${filters.length}`] = await store.queryStat({
              ...QUERY,
              websiteId: 1,
              stat,
              from: "2026-06-10",
              to: "2026-06-15",
              filters,
            });
          }
        }
        return result;
      };
      const visitRows = async (where: string) => {
        const [row = {}] = await storeFileSql(dir, `SELECT count(*) AS n FROM day_visits WHERE ${where}`, {
          readOnly: true,
        });
        return Number(row.n);
      };
      let store = await DuckDbEventStore.open(dir, options);
      try {
        await store.migrate();
        await store.insert(
          columnsOf(
            randomEvents(next, 900, { start, days: 6, visitor: () => pick(next, visitors), mixed: 0.05 }),
          ),
        );
        clock.advance(11_000);
        await store.upkeep();
        const expected = await all();
        await store.close();
        // The tables as the older version made them, with their rows, and none of the later ones.
        assert.ok((await visitRows("day = DATE '2026-06-15'")) > 0, "today's visits kept");
        await storeFileSql(
          dir,
          `CREATE TABLE day_visits_older AS SELECT ${older.columns} FROM day_visits;
         DROP TABLE day_visits;
         ALTER TABLE day_visits_older RENAME TO day_visits;
         ALTER TABLE events DROP COLUMN round;
         ${
           older.since.includes(12)
             ? "DROP TABLE visit_days; DROP TABLE visitor_changes;"
             : `CREATE TABLE visit_days_older AS SELECT website_id, day FROM visit_days;
                DROP TABLE visit_days;
                ALTER TABLE visit_days_older RENAME TO visit_days;`
         }
         DELETE FROM schema_migrations WHERE version IN (${older.since.join(", ")});`,
        );
        assert.ok((await visitRows("true")) > 0, "folded visits to migrate");
        store = await DuckDbEventStore.open(dir, options);
        await store.migrate();
        assert.deepEqual(await all(), expected, "counted from the events until folded again");
        clock.advance(11_000);
        await store.upkeep();
        assert.deepEqual(await all(), expected, "folded again");
        await store.close();
        assert.ok(
          (await visitRows("NOT mixed AND browser IS NOT NULL")) > 0,
          "steady visits hold attributes",
        );
        assert.ok((await visitRows("mixed AND browser IS NULL")) > 0, "mixed ones do not");
        assert.ok((await visitRows("first_of_day AND day_hours > 0")) > 0, "visits hold their day's hours");
        store = await DuckDbEventStore.open(dir, options);
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("counts a batch's visitors by their local day, across UTC midnight and after a change of zone", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-06-12T12:00:00Z");
    const hit = (ts: string, visitor: bigint): StoredEvent => ({
      ...(randomEventsOf(random(9), 1, 0)[0] as StoredEvent),
      websiteId: 1,
      ts: new Date(ts),
      visitor,
      kind: "pageview",
      page: "/a",
    });
    const onPage = parseFilters("page==/a");
    assert.ok("filters" in onPage);
    const store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
    try {
      await store.migrate();
      await store.setZone(1, "America/New_York");
      // One visitor's evening in New York: 10 June there, two UTC days.
      await store.insert(columnsOf([hit("2026-06-10T23:30:00Z", 5n), hit("2026-06-11T00:30:00Z", 5n)]));
      const read = async (zone: string) => {
        const window = { websiteId: 1, zone, from: "2026-06-09", to: "2026-06-12", filters: onPage.filters };
        const stats = ["browser", "country", "visitors_hours"].map(
          (name) => statByName(name) as StatDefinition,
        );
        const batch = await store.queryStats({ ...window, pages: stats.map((stat) => ({ ...PAGE, stat })) });
        for (const [i, stat] of stats.entries())
          assert.deepEqual(
            batch[i],
            await store.queryStat({ ...QUERY, ...window, stat }),
            `${stat.name} in ${zone}`,
          );
        return batch.map((page) => page.rows.map((row) => row.count));
      };
      // One visitor's day in New York (its hours 19 and 20 there); in UTC, the same number on
      // two days is two visitors' days (as for any statistic after a change of zone).
      assert.deepEqual(await read("America/New_York"), [[1], [1], [1, 1]]);
      await store.setZone(1, "UTC");
      assert.deepEqual(await read("UTC"), [[2], [2], [1, 1]]);
    } finally {
      await store.close();
    }
  });

  it("keeps one visitor one visitor across a restart, and forgets a day's ids once its salt is gone", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-06-10T12:00:00Z");
    const hit = (ts: string, visitor: bigint, page: string): StoredEvent => ({
      ...(randomEventsOf(random(9), 1, 0)[0] as StoredEvent),
      websiteId: 1,
      ts: new Date(ts),
      visitor,
      kind: "pageview",
      page,
    });
    const visitorsOf = async () =>
      (
        (await answers(store, 1, [["2026-01-01", "2026-12-31"]]))["visitors 2026-01-01 2026-12-31"] as {
          rows: unknown;
        }
      ).rows;
    let store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
    try {
      await store.migrate();
      await store.insert(
        columnsOf([hit("2026-06-10T08:00:00Z", 77n, "/a"), hit("2026-06-01T08:00:00Z", 77n, "/a")]),
      );
      await store.close();
      store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
      // The same hash again, today and on the old day an import wrote today (its salt lives
      // on 48 hours after that import): one visitor on each day.
      await store.insert(
        columnsOf([hit("2026-06-10T09:00:00Z", 77n, "/b"), hit("2026-06-01T09:00:00Z", 77n, "/b")]),
      );
      assert.deepEqual(await visitorsOf(), [
        { value: "2026-06-01", count: 1 },
        { value: "2026-06-10", count: 1 },
      ]);
      // Three days without a write to those days: their salts are gone, and so are their ids
      // (a real hash could not repeat; a repeated one counts as a new visitor).
      clock.set("2026-06-13T00:00:01Z");
      await store.insert(columnsOf([hit("2026-06-13T00:00:01Z", 5n, "/c")]));
      await store.upkeep();
      await store.close();
      store = await DuckDbEventStore.open(dir, { clock, upkeep: false });
      await store.insert(columnsOf([hit("2026-06-01T10:00:00Z", 77n, "/d")]));
      assert.deepEqual(await visitorsOf(), [
        { value: "2026-06-01", count: 2 },
        { value: "2026-06-10", count: 1 },
        { value: "2026-06-13", count: 1 },
      ]);
      const events = await storedEvents(store, 1);
      const today = events.filter((e) => e.ts.toISOString().startsWith("2026-06-10"));
      assert.equal(today[0]?.visitor, today[1]?.visitor, "the same visitor number after the restart");
      // Exported, a visitor whose id is gone is a stand-in made of its number (unique to the
      // website): the same stand-in for the same number, another for another visitor.
      const exported: StoredEvent[] = [];
      for await (const chunk of store.exportEvents({ websiteId: 1 })) exported.push(...chunk);
      const ofDay = (date: number) =>
        new Map(exported.filter((e) => e.ts.getUTCDate() === date).map((e) => [e.page, e.visitor]));
      const byPage = ofDay(1);
      assert.equal((byPage.get("/a") ?? 0n) >> 32n, 0xffffffffn, "a stand-in");
      assert.equal(byPage.get("/b"), byPage.get("/a"));
      assert.notEqual(ofDay(10).get("/a"), byPage.get("/a"), "the same hash on another day: another visitor");
      assert.equal(byPage.get("/d"), 77n, "a hash written since is kept");
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function exported(store: DuckDbEventStore): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const chunk of store.exportEvents({ websiteId: 1 })) events.push(...chunk);
  return events;
}
