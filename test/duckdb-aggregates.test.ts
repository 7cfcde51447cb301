// The embedded store's incremental aggregates against the rebuild from raw events: random
// traffic in random batch sizes over several weeks, across restarts (a day's memory is
// restored from storage), compaction and weekly roll-ups, must give exactly the answers the
// rebuild gives, for every statistic and for windows that cut weeks anywhere.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { STATS } from "../src/stats/catalog.js";
import { WEEKS_BEFORE_SQL } from "../src/storage/duckdb/aggregate-sql.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { schemaAtVersionSql, storeFileSql } from "./support/duckdb-file.js";
import { random, randomEvents } from "./support/seeded-random.js";
import { tempDir } from "./support/test-app.js";

/** Random events over `days` days from `start`, from a pool of 40 visitors. */
function randomEventsOf(next: () => number, count: number, start: number, days = 3): StoredEvent[] {
  return randomEvents(next, count, { start, days, visitor: () => BigInt(Math.floor(next() * 40)) });
}

const QUERY = { search: null, sortBy: "count", sort: "desc", limit: 100, offset: 0 } as const;

/**
 * Windows over 2026-06-10 (a Wednesday) to 2026-07-03: whole weeks, cut weeks, single days,
 * and weeks mostly covered at either end (read as the week minus its days outside).
 */
const WINDOWS = [
  ["2026-01-01", "2026-12-31"],
  ["2026-06-11", "2026-06-25"],
  ["2026-06-08", "2026-06-28"],
  ["2026-06-15", "2026-06-21"],
  ["2026-06-16", "2026-06-27"],
  ["2026-06-22", "2026-06-22"],
  ["2026-06-16", "2026-06-21"],
  ["2026-06-17", "2026-06-26"],
  ["2026-06-09", "2026-06-27"],
  ["2026-06-10", "2026-07-02"],
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

/** What the (closed) store has rolled up into weekly_stats. */
async function rollUps(dir: string): Promise<{ rows: number; weeksBefore: string }> {
  const [row = {}] = await storeFileSql(
    dir,
    `SELECT (SELECT count(*) FROM weekly_stats) AS n, strftime(${WEEKS_BEFORE_SQL}, '%Y-%m-%d') AS weeks_before`,
    { readOnly: true },
  );
  return { rows: Number(row.n), weeksBefore: String(row.weeks_before) };
}

/**
 * Each window's answer recomputed from single-day answers (a single day never reads a
 * weekly roll-up): every statistic's count over a window is the sum of its daily counts.
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
    it(`match the rebuild from raw events across batches, restarts and roll-ups (seed ${seed})`, async () => {
      const dir = tempDir("analytics-aggregates-");
      const start = Date.UTC(2026, 5, 10);
      const days = 24;
      // "Now" is the last generated day, so the two newest days keep visitor ids.
      const clock = new ManualClock(new Date(start + (days - 0.5) * 86_400_000));
      const next = random(seed);
      // Tiny merge thresholds: merges, moves into daily_stats and weekly roll-ups happen
      // between batches, and later batches still add to days and weeks already moved.
      const options = { clock, compactAfterRows: 40 };
      let store = await DuckDbEventStore.open(dir, options);
      try {
        await store.migrate();
        let sent = 0;
        for (let round = 0; round < 8; round++) {
          const size = 1 + Math.floor(next() * 600);
          await store.insert(randomEventsOf(next, size, start, days));
          sent += size;
          if (round === 2 || round === 5) {
            await store.close(); // the next insert must restore each day's memory from storage
            store = await DuckDbEventStore.open(dir, options);
          }
        }
        assert.equal(await store.countEvents(), sent);
        await store.close();
        const rolled = await rollUps(dir);
        assert.ok(
          rolled.rows > 0 && rolled.weeksBefore > "2026-06-15",
          `weeks rolled up: ${JSON.stringify(rolled)}`,
        );
        store = await DuckDbEventStore.open(dir, options);
        const incremental = [await answers(store, 1, WINDOWS), await answers(store, 2, WINDOWS)];
        assert.deepEqual(incremental[0], await summedFromDays(store, 1, WINDOWS));
        await store.rebuildAggregates(1);
        assert.deepEqual(await answers(store, 1, WINDOWS), incremental[0]);
        await store.rebuildAggregates();
        assert.deepEqual([await answers(store, 1, WINDOWS), await answers(store, 2, WINDOWS)], incremental);
        await store.close();
        assert.equal(
          (await rollUps(dir)).weeksBefore,
          rolled.weeksBefore,
          "the rebuild rolls the same weeks up",
        );
        store = await DuckDbEventStore.open(dir, options);
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("counts rows moved later into a rolled-up week that had no traffic when it was rolled up", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-07-10T12:00:00Z");
    const base = randomEventsOf(random(5), 1, 0)[0] as StoredEvent;
    const hit = (day: string): StoredEvent => ({
      ...base,
      websiteId: 1,
      kind: "pageview",
      ts: new Date(`${day}T10:00:00Z`),
    });
    // Compact after every batch: each insert merges, moves and rolls up at once.
    const store = await DuckDbEventStore.open(dir, { clock, compactAfterRows: 1 });
    try {
      await store.migrate();
      // Weeks of June 1 to June 28 are rolled up; those of June 8, 15 and 22 had no traffic.
      await store.insert([hit("2026-06-01"), hit("2026-06-30"), hit("2026-07-01")]);
      // An import into the empty week of June 15: June 16 moves into daily_stats.
      await store.insert([hit("2026-06-16")]);
      const window = [["2026-06-01", "2026-07-05"]] as const;
      const answer = await answers(store, 1, window);
      assert.deepEqual(answer, await summedFromDays(store, 1, window));
      assert.deepEqual((answer["pageviews 2026-06-01 2026-07-05"] as { total: number }).total, 4);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("numbers the values of a version-3 store's aggregates in every table", async () => {
    const dir = tempDir("analytics-aggregates-");
    const page = STATS.find((stat) => stat.name === "page");
    assert.ok(page);
    await storeFileSql(
      dir,
      `${schemaAtVersionSql(3)}
       INSERT INTO weekly_stats VALUES (1, ${page.id}, DATE '2026-06-01', '/a', 7), (1, ${page.id}, DATE '2026-06-01', '/b', 1);
       INSERT INTO daily_stats VALUES (1, ${page.id}, DATE '2026-06-01', '/a', 3), (1, ${page.id}, DATE '2026-06-08', '/c', 2);
       INSERT INTO daily_stats_recent VALUES (1, ${page.id}, DATE '2026-06-09', '/b', 4);
       INSERT INTO daily_stats_deltas VALUES (1, ${page.id}, DATE '2026-06-10', '/a', 1), (2, ${page.id}, DATE '2026-06-10', '/a', 5)`,
    );
    const store = await DuckDbEventStore.open(dir, { clock: new ManualClock("2026-06-10T12:00:00Z") });
    try {
      await store.migrate();
      // The week of June 1 is rolled up (its roll-up is read, not its days), the rest by day.
      const answer = async (websiteId: number, from: string, to: string) =>
        (await store.queryStat({ ...QUERY, websiteId, stat: page, from, to })).rows;
      assert.deepEqual(await answer(1, "2026-06-01", "2026-06-30"), [
        { value: "/a", count: 8 },
        { value: "/b", count: 5 },
        { value: "/c", count: 2 },
      ]);
      assert.deepEqual(await answer(1, "2026-06-01", "2026-06-01"), [{ value: "/a", count: 3 }]);
      assert.deepEqual(await answer(2, "2026-06-01", "2026-06-30"), [{ value: "/a", count: 5 }]);
      // New values go on from the migrated numbers.
      const hit = randomEventsOf(random(4), 1, 0)[0] as StoredEvent;
      await store.insert([
        { ...hit, websiteId: 1, ts: new Date("2026-06-10T09:00:00Z"), kind: "pageview", page: "/d" },
        { ...hit, websiteId: 1, ts: new Date("2026-06-10T10:00:00Z"), kind: "pageview", page: "/b" },
      ]);
      assert.deepEqual(await answer(1, "2026-06-10", "2026-06-10"), [
        { value: "/a", count: 1 },
        { value: "/b", count: 1 },
        { value: "/d", count: 1 },
      ]);
    } finally {
      await store.close();
    }
    const [row = {}] = await storeFileSql(
      dir,
      "SELECT count(*) AS n, count(DISTINCT value) AS distinct_values, max(id) AS top FROM stat_values",
      { readOnly: true },
    );
    assert.equal(row.n, row.distinct_values, "each value numbered once");
    assert.equal(Number(row.n), Number(row.top), "numbers are dense");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("upgrades a version-1 store: its unmerged recent rows count once, and merge with new ones", async () => {
    const dir = tempDir("analytics-aggregates-");
    const page = STATS.find((stat) => stat.name === "page");
    assert.ok(page);
    // A store as version 1 left it: daily_stats_recent held deltas, two of them for one key.
    await storeFileSql(
      dir,
      `${schemaAtVersionSql(1)}
      INSERT INTO daily_stats_recent VALUES
        (1, ${page.id}, DATE '2026-06-10', '/a', 2), (1, ${page.id}, DATE '2026-06-10', '/a', 3),
        (1, ${page.id}, DATE '2026-06-09', '/b', 4)`,
    );
    const clock = new ManualClock("2026-06-10T12:00:00Z");
    // Every insert merges the deltas, the version-1 rows with the new one.
    const options = { clock, compactAfterRows: 1 };
    let store = await DuckDbEventStore.open(dir, options);
    try {
      await store.migrate();
      const pages = async () =>
        (await answers(store, 1, [["2026-06-01", "2026-06-30"]]))["page 2026-06-01 2026-06-30"];
      assert.deepEqual(await pages(), {
        rows: [
          { value: "/a", count: 5 },
          { value: "/b", count: 4 },
        ],
        total: 2,
      });
      const hit = randomEventsOf(random(4), 1, 0)[0] as StoredEvent;
      await store.insert([
        { ...hit, websiteId: 1, ts: new Date("2026-06-10T09:00:00Z"), kind: "pageview", page: "/a" },
      ]);
      await store.close();
      store = await DuckDbEventStore.open(dir, options);
      await store.migrate();
      assert.deepEqual(await pages(), {
        rows: [
          { value: "/a", count: 6 },
          { value: "/b", count: 4 },
        ],
        total: 2,
      });
      await store.close();
      const merged = await storeFileSql(
        dir,
        `SELECT (SELECT count(*) FROM daily_stats_deltas) AS deltas,
           (SELECT list(v.value || '=' || r.count ORDER BY v.value) FROM daily_stats_recent r
              JOIN stat_values v ON v.id = r.value_id WHERE r.stat = ${page.id}) AS pages`,
        { readOnly: true },
      );
      assert.deepEqual(merged, [{ deltas: 0n, pages: ["/a=6", "/b=4"] }]);
      store = await DuckDbEventStore.open(dir, options);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
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
    let store = await DuckDbEventStore.open(dir, { clock });
    try {
      await store.migrate();
      await store.insert([hit("2026-06-10T08:00:00Z", 77n, "/a"), hit("2026-06-01T08:00:00Z", 77n, "/a")]);
      await store.close();
      store = await DuckDbEventStore.open(dir, { clock });
      // The same hash again, today and on the old day an import wrote today (its salt lives
      // on 48 hours after that import): one visitor on each day.
      await store.insert([hit("2026-06-10T09:00:00Z", 77n, "/b"), hit("2026-06-01T09:00:00Z", 77n, "/b")]);
      assert.deepEqual(await visitorsOf(), [
        { value: "2026-06-01", count: 1 },
        { value: "2026-06-10", count: 1 },
      ]);
      // Three days without a write to those days: their salts are gone, and so are their ids
      // (a real hash could not repeat; a repeated one counts as a new visitor).
      clock.set("2026-06-13T00:00:01Z");
      await store.insert([hit("2026-06-13T00:00:01Z", 5n, "/c")]);
      await store.close();
      store = await DuckDbEventStore.open(dir, { clock });
      await store.insert([hit("2026-06-01T10:00:00Z", 77n, "/d")]);
      assert.deepEqual(await visitorsOf(), [
        { value: "2026-06-01", count: 2 },
        { value: "2026-06-10", count: 1 },
        { value: "2026-06-13", count: 1 },
      ]);
      const events = await store.listEvents(1);
      const today = events.filter((e) => e.ts.toISOString().startsWith("2026-06-10"));
      assert.equal(today[0]?.visitor, today[1]?.visitor, "the same visitor number after the restart");
      // Exported, a visitor whose id is gone is a stand-in unique to its day (day << 32 | number).
      const exported: StoredEvent[] = [];
      for await (const chunk of store.exportEvents({ websiteId: 1 })) exported.push(...chunk);
      const oldDay = BigInt(Date.parse("2026-06-01T00:00:00Z") / 86_400_000);
      const byPage = new Map(exported.filter((e) => e.ts.getUTCDate() === 1).map((e) => [e.page, e.visitor]));
      assert.equal((byPage.get("/a") ?? 0n) >> 32n, oldDay);
      assert.equal(byPage.get("/b"), byPage.get("/a"));
      assert.equal(byPage.get("/d"), 77n, "a hash written since is kept");
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
