// Unique visitors and visits of closed days folded into counts on the ClickHouse store (see
// src/storage/clickhouse/migrations.ts), against the catalog's definitions
// (test/support/reference-stats.ts): the same answers before and after folding; an insert
// into a folded day (an import into the past) counts at once, neither twice nor lost, and
// the next fold takes it in; a rebuild folds again; a store of version 1 holding data
// migrates and answers the same; a started store folds by itself and stops with close().
// On every ClickHouse engine under test.

import assert from "node:assert/strict";
import { after, before, describe, it, mock } from "node:test";
import { createClient } from "@clickhouse/client";
import { ManualClock } from "../src/clock.js";
import { STATS, statByName } from "../src/stats/catalog.js";
import type { StatsPage, StatsQuery } from "../src/stats/stats-query.js";
import { COUNT_VISITORS, statSelect, VISITOR_STATS } from "../src/storage/clickhouse/aggregate-sql.js";
import { ClickHouseEventStore } from "../src/storage/clickhouse/clickhouse-event-store.js";
import { FOLD_EVERY_MS } from "../src/storage/clickhouse/day-folds.js";
import { CLICKHOUSE_MIGRATIONS, distributedTables } from "../src/storage/clickhouse/migrations.js";
import { sql, sqlIdentifier } from "../src/storage/clickhouse/sql-escape.js";
import { type DayPlan, visitorPlanSql } from "../src/storage/clickhouse/stat-sql.js";
import { columnsOf } from "../src/storage/event-columns.js";
import type { EventStore, StoredEvent } from "../src/storage/ports.js";
import {
  CLICKHOUSE_ENGINES,
  type ProvisionedClickHouse,
  provisionClickHouse,
} from "./support/event-stores.js";
import { referenceStat } from "./support/reference-stats.js";
import { pick, random, randomEvents } from "./support/seeded-random.js";
import { answers, EVERY_ROW, visitorPool } from "./support/stat-answers.js";

const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 5, 10);
const day = (n: number) => new Date(START + n * DAY_MS).toISOString().slice(0, 10);
/** Days 0-2 are closed; day 3 is today. */
const NOW = new Date(START + 3.5 * DAY_MS);

/** What the catalog's definitions answer over `events`, asked as a store is asked. */
function reference(events: readonly StoredEvent[]): EventStore {
  return { queryStat: async (query: StatsQuery) => referenceStat(events, query) } as unknown as EventStore;
}

/** Statements on each node of a provisioned store, through a client of its own: a SELECT's rows, else []. */
async function onNodes<T>(
  store: ProvisionedClickHouse,
  work: (run: (text: string) => Promise<T[]>) => Promise<void>,
) {
  for (const url of store.urls) {
    const client = createClient({ url: new URL(url).origin });
    try {
      await work(async (text) => {
        if (/^\s*SELECT/i.test(text))
          return (await client.query({ query: text, format: "JSONEachRow" })).json<T>();
        await client.command({ query: text });
        return [];
      });
    } finally {
      await client.close();
    }
  }
}

/** The days a query of `visitors` would count from raw events on some node (those without a current fold). */
async function openDays(store: ProvisionedClickHouse, websiteId: number): Promise<string[]> {
  const open = new Set<string>();
  const database = new URL(store.urls[0] as string).pathname.slice(1);
  const query = {
    websiteId,
    stat: statByName("visitors") ?? assert.fail(),
    from: day(0),
    to: day(3),
    ...({
      filters: [],
      zone: "UTC",
      search: null,
      sortBy: "count",
      sort: "desc",
      limit: 10,
      offset: 0,
    } as const),
  };
  await onNodes<DayPlan>(store, async (run) => {
    for (const plan of await run(visitorPlanSql(query, sqlIdentifier(database)).text))
      if (plan.fold === "0") open.add(plan.day);
  });
  return [...open].sort();
}

/** A query of `name` over days 0-3, every row by count. */
function visitsQuery(websiteId: number, name: string): StatsQuery {
  return { websiteId, stat: statByName(name) ?? assert.fail(), from: day(0), to: day(3), ...EVERY_ROW };
}

const pairs = (page: StatsPage) => page.rows.map((row) => [row.value, row.count]);

for (const engine of CLICKHOUSE_ENGINES) {
  describe(`folding closed days (${engine.name})`, { skip: engine.skip }, () => {
    let provisioned: ProvisionedClickHouse;
    let house: ClickHouseEventStore;
    /** Every event inserted. */
    const inserted: StoredEvent[] = [];
    const next = random(23);
    const visitors = visitorPool(next, 40);
    const insert = async (events: StoredEvent[]) => {
      await house.insert(columnsOf(events));
      inserted.push(...events);
    };
    const same = async (message: string) => {
      for (const websiteId of [1, 2])
        assert.deepEqual(
          await answers(house, websiteId),
          await answers(reference(inserted), websiteId),
          `${message}, website ${websiteId}`,
        );
    };

    before(async () => {
      provisioned = await provisionClickHouse(engine);
      house = new ClickHouseEventStore(provisioned, { clock: new ManualClock(NOW) });
      await house.migrate();
      for (let round = 0; round < 4; round++)
        await insert(randomEvents(next, 300, { start: START, days: 4, visitor: () => pick(next, visitors) }));
    });
    after(async () => {
      await house?.close();
      await provisioned?.dispose();
    });

    it("answers the same from raw events and, once folded, from the folds of the closed days", async () => {
      assert.deepEqual(await openDays(provisioned, 1), [day(0), day(1), day(2), day(3)]);
      await same("before folding");
      assert.ok((await house.folder.fold()) >= 6, "each website's three closed days, on each node");
      assert.deepEqual(await openDays(provisioned, 1), [day(3)], "only today is counted from raw events");
      await same("after folding");
      assert.equal(await house.folder.fold(), 0, "nothing is folded twice");
    });

    it("counts an insert into a folded day at once, neither twice nor lost, and folds the day again", async () => {
      // Known visitors of day 1 again (must not count twice) and new ones (must count).
      const late = randomEvents(next, 200, {
        start: START + DAY_MS,
        days: 1,
        visitor: () => (next() < 0.5 ? pick(next, visitors) : BigInt(Math.floor(next() * 2 ** 40))),
      });
      await insert(late);
      assert.deepEqual(await openDays(provisioned, 1), [day(1), day(3)], "the late day is open again");
      await same("right after the late insert");
      assert.ok((await house.folder.fold()) >= 2, "the late day, of both websites");
      assert.deepEqual(await openDays(provisioned, 1), [day(3)]);
      await same("after folding the late day again");
    });

    it("folds visits with the unique visitors, and counts a late pageview into a folded day at once", async () => {
      const site = 4;
      const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
      const base = randomEvents(random(4), 1, { start: START, days: 1, visitor: () => 1n })[0] as StoredEvent;
      const at = (time: string, visitor: bigint, kind: StoredEvent["kind"], page: string): StoredEvent => ({
        ...base,
        websiteId: site,
        ts: new Date(`${day(1)}T${time}Z`),
        visitor,
        kind,
        page,
        event: kind === "event" ? "Signup::" : "",
      });
      const visitAnswers = async (store: EventStore) => {
        const result: Record<string, unknown> = {};
        for (const stat of STATS.filter((each) => each.rows === "visits"))
          result[stat.name] = await store.queryStat(visitsQuery(site, stat.name));
        return result;
      };
      const same = async (message: string) =>
        assert.deepEqual(await visitAnswers(house), await visitAnswers(reference(inserted)), message);
      const foldedVisitRows = async () => {
        let n = 0;
        const ids = STATS.filter((stat) => stat.rows === "visits").map((stat) => stat.id);
        await onNodes<{ n: string }>(provisioned, async (run) => {
          const [row] = await run(`SELECT count() AS n FROM ${database}.visitor_counts_local
            WHERE website_id = ${site} AND stat IN (${ids.join(", ")})`);
          n += Number(row?.n ?? 0);
        });
        return n;
      };
      // A bounce (4 s); two pageviews and a custom event (900 s, exit /c); an engagement
      // before any pageview (in no visit), then a pageview alone.
      await insert([
        at("10:00:00", 1n, "pageview", "/a"),
        at("10:00:04", 1n, "engagement", "/a"),
        at("11:00:00", 2n, "pageview", "/b"),
        at("11:10:00", 2n, "pageview", "/c"),
        at("11:15:00", 2n, "event", "/c"),
        at("08:00:00", 3n, "engagement", "/a"),
        at("09:00:00", 3n, "pageview", "/a"),
      ]);
      await same("counted from raw events");
      assert.deepEqual(pairs(await house.queryStat(visitsQuery(site, "visit_seconds"))), [[day(1), 904]]);
      assert.ok((await house.folder.fold()) >= 1);
      assert.ok((await foldedVisitRows()) > 0, "the day's visits are folded");
      assert.deepEqual(await openDays(provisioned, site), [], "the closed day is read from its folds");
      await same("from the folds");
      // A pageview 20 minutes into the bounce (now 2 pageviews, 1200 s), another 50 minutes
      // after the last pageview of visitor 2 (a new visit).
      await insert([at("10:20:00", 1n, "pageview", "/d"), at("12:00:00", 2n, "pageview", "/e")]);
      assert.deepEqual(await openDays(provisioned, site), [day(1)], "the late pageviews reopen the day");
      await same("right after the late insert");
      assert.deepEqual(pairs(await house.queryStat(visitsQuery(site, "visits"))), [[day(1), 4]]);
      assert.ok((await house.folder.fold()) >= 1, "the day is folded again");
      assert.deepEqual(await openDays(provisioned, site), []);
      await same("after folding the late day again");
    });

    it("folds again on a rebuild, and deletes a website's folds with it", async () => {
      await house.rebuildAggregates(1);
      assert.deepEqual(await openDays(provisioned, 1), [day(3)]);
      await house.rebuildAggregates();
      assert.deepEqual(await openDays(provisioned, 2), [day(3)]);
      await same("after rebuilding");
      await house.deleteWebsite(2);
      await onNodes<{ n: string }>(provisioned, async (run) => {
        const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
        const [row] = await run(
          `SELECT count() AS n FROM ${database}.visitor_counts_local WHERE website_id = 2`,
        );
        assert.equal(Number(row?.n), 0, "no fold of the deleted website is left");
      });
    });

    it("deletes a fold once a newer fold of its day has been there for 10 minutes, not before", async () => {
      const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
      const folds = async () => {
        const found = new Set<string>();
        await onNodes<{ fold: string }>(provisioned, async (run) => {
          const rows = await run(`SELECT DISTINCT toString(fold) AS fold FROM ${database}.visitor_counts_local
            WHERE website_id = 9`);
          for (const row of rows) found.add(row.fold);
        });
        return [...found].sort();
      };
      // Folds of two days of website 9, which has no events (nothing folds them again), by age:
      // on day 0 the newest is a minute old, on day 1 a quarter of an hour.
      await onNodes(provisioned, async (run) => {
        for (const [fold, days, age] of [
          [1, 0, 7200],
          [2, 0, 3600],
          [3, 0, 60],
          [4, 1, 7200],
          [5, 1, 900],
        ])
          await run(`INSERT INTO ${database}.visitor_counts_local
            SELECT 9, 2, toDate('${day(days as number)}'), '', 1, 1, ${fold}, now() - ${age}`);
      });
      await house.folder.fold();
      for (let tries = 0; (await folds()).includes("4"); tries++) {
        assert.ok(tries < 100, "the replaced fold of day 1 is deleted");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(await folds(), ["1", "2", "3", "5"]);
    });

    it("deletes a local day's fold 10 minutes after a newer one, and folds of a zone the website left", async () => {
      const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
      const folds = async () => {
        const found = new Set<string>();
        await onNodes<{ fold: string }>(provisioned, async (run) => {
          const rows = await run(`SELECT DISTINCT toString(fold) AS fold FROM ${database}.zone_counts_local
            WHERE website_id = 8`);
          for (const row of rows) found.add(row.fold);
        });
        return [...found].sort();
      };
      // Website 8 (no events) moved from Berlin to Tokyo an hour ago.
      await onNodes(provisioned, async (run) => {
        await run(`INSERT INTO ${database}.website_zones_local VALUES
          (8, 'Europe/Berlin', (toUInt64(now()) - 7200) * 1000), (8, 'Asia/Tokyo', (toUInt64(now()) - 3600) * 1000)`);
        for (const [fold, zone, days, age] of [
          [11, "Europe/Berlin", 0, 7200],
          [12, "Asia/Tokyo", 0, 7200],
          [13, "Asia/Tokyo", 0, 60],
          [14, "Asia/Tokyo", 1, 7200],
          [15, "Asia/Tokyo", 1, 900],
        ])
          await run(`INSERT INTO ${database}.zone_counts_local
            SELECT 8, '${zone}', 0, toDate('${day(days as number)}'), '', 1, ${fold}, now() - ${age}`);
      });
      await house.folder.fold();
      for (let tries = 0; (await folds()).length > 3; tries++) {
        assert.ok(tries < 100, "the unread folds are deleted");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(await folds(), ["12", "13", "15"]);
    });

    it("folds the local days of a website in another zone, and counts a late insert at once", async () => {
      const zone = "America/New_York";
      const site = 3;
      const dayIn = new Intl.DateTimeFormat("en-CA", { timeZone: zone });
      // Each visitor's hash salted per New York day, as the pipeline does.
      const zoned = (count: number, start: number, days: number) =>
        randomEvents(next, count, { start, days, visitor: () => pick(next, visitors) }).map((event) => ({
          ...event,
          websiteId: site,
          visitor: event.visitor ^ BigInt(Date.parse(dayIn.format(event.ts)) / DAY_MS),
        }));
      await house.setZone(site, zone);
      await insert(zoned(800, START, 4));
      const sameInZone = async (message: string) =>
        assert.deepEqual(
          await answers(house, site, "2026-01-01", "2026-12-31", zone),
          await answers(reference(inserted), site, "2026-01-01", "2026-12-31", zone),
          message,
        );
      const markers = async () => {
        let n = 0;
        const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
        await onNodes<{ n: string }>(provisioned, async (run) => {
          const [row] = await run(`SELECT count() AS n FROM ${database}.zone_counts_local
            WHERE website_id = ${site} AND zone = '${zone}' AND stat = 0`);
          n += Number(row?.n ?? 0);
        });
        return n;
      };
      await sameInZone("before folding");
      assert.equal(await markers(), 0);
      assert.ok((await house.folder.fold()) >= 3, "the closed local days, on each node");
      const folded = await markers();
      assert.ok(folded >= 3, `folds of the closed local days (${folded})`);
      await sameInZone("after folding");
      assert.equal(await house.folder.fold(), 0, "nothing is folded twice");
      await insert(zoned(150, START + DAY_MS, 1));
      await sameInZone("right after a late insert");
      assert.ok((await house.folder.fold()) >= 1, "the days the late insert touched");
      await sameInZone("after folding them again");
      assert.deepEqual(
        await answers(house, site, "2026-01-01", "2026-12-31", "UTC"),
        await answers(reference(inserted), site, "2026-01-01", "2026-12-31", "UTC"),
        "and in UTC, from the UTC aggregates",
      );
    });

    it("folds by itself once started, after a day stopped changing, and stops with close()", async () => {
      const own = await provisionClickHouse(engine);
      const store = new ClickHouseEventStore(own, { clock: new ManualClock(NOW) });
      const errors: unknown[] = [];
      mock.timers.enable({ apis: ["setInterval"] });
      try {
        await store.migrate();
        await store.insert(
          columnsOf(randomEvents(next, 100, { start: START, days: 1, visitor: () => pick(next, visitors) })),
        );
        store.folder.start((error) => errors.push(error));
        for (let tries = 0; (await openDays(own, 1)).length > 0; tries++) {
          assert.ok(tries < 100, "folded within 100 rounds");
          mock.timers.tick(FOLD_EVERY_MS);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await store.close();
        mock.timers.tick(FOLD_EVERY_MS); // a round now would fail on the closed clients
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(errors, []);
      } finally {
        mock.timers.reset();
        await store.close();
        await own.dispose();
      }
    });
  });

  describe(`a store folded before the visit statistics (${engine.name})`, { skip: engine.skip }, () => {
    it("folds every closed day again once migrated, and answers visits exactly meanwhile", async () => {
      const provisioned = await provisionClickHouse(engine);
      const house = new ClickHouseEventStore(provisioned, { clock: new ManualClock(NOW) });
      const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
      const db = sqlIdentifier(database);
      try {
        // Version 3's schema, its events, and its folds: of the unique visitors alone.
        const before = CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version <= 3);
        await onNodes(provisioned, async (run) => {
          const statements = [
            sql`CREATE DATABASE ${db}`,
            sql`CREATE TABLE ${db}.schema_migrations (version UInt32, name String) ENGINE = TinyLog`,
            ...before.flatMap((migration) => [
              ...migration.statements(db),
              sql`INSERT INTO ${db}.schema_migrations VALUES (${migration.version}, ${migration.name})`,
            ]),
          ];
          if (provisioned.cluster)
            statements.push(...distributedTables(db, sqlIdentifier(provisioned.cluster)));
          for (const statement of statements) await run(statement.text);
        });
        const next = random(8);
        const pool = visitorPool(next);
        const events = randomEvents(next, 600, { start: START, days: 4, visitor: () => pick(next, pool) });
        await house.insert(columnsOf(events));
        await onNodes(provisioned, async (run) => {
          const closed = sql`day < toDate(${day(3)})`;
          const folds = statSelect(VISITOR_STATS, COUNT_VISITORS, sql`${db}.events_local`, closed);
          await run(`INSERT INTO ${database}.visitor_counts_local
            SELECT website_id, stat, day, value, visitors, pageviews, cityHash64(1, website_id, day), now()
            FROM (${folds.text})`);
          await run(
            `INSERT INTO ${database}.zone_counts_local VALUES (1, 'Asia/Tokyo', 0, '${day(0)}', '', 1, 2, now())`,
          );
        });
        assert.deepEqual(await openDays(provisioned, 1), [day(3)], "version 3's folds look current");

        await house.migrate();
        assert.deepEqual(await openDays(provisioned, 1), [day(0), day(1), day(2), day(3)], "no fold is left");
        await onNodes<{ n: string }>(provisioned, async (run) => {
          const [row] = await run(`SELECT count() AS n FROM ${database}.zone_counts_local`);
          assert.equal(Number(row?.n), 0, "nor a fold of a local day");
        });
        for (const websiteId of [1, 2])
          assert.deepEqual(await answers(house, websiteId), await answers(reference(events), websiteId));
        assert.ok((await house.folder.fold()) >= 6);
        assert.deepEqual(await openDays(provisioned, 1), [day(3)]);
        for (const websiteId of [1, 2])
          assert.deepEqual(await answers(house, websiteId), await answers(reference(events), websiteId));
      } finally {
        await house.close();
        await provisioned.dispose();
      }
    });
  });

  describe(`a store of version 1 holding data (${engine.name})`, { skip: engine.skip }, () => {
    it("migrates to folds and answers the same, before and after folding", async () => {
      const provisioned = await provisionClickHouse(engine);
      const house = new ClickHouseEventStore(provisioned, { clock: new ManualClock(NOW) });
      const database = new URL(provisioned.urls[0] as string).pathname.slice(1);
      try {
        // Version 1's schema, as its migrate left it, then events through its views.
        const db = sqlIdentifier(database);
        await onNodes(provisioned, async (run) => {
          const statements = [
            sql`CREATE DATABASE ${db}`,
            sql`CREATE TABLE ${db}.schema_migrations (version UInt32, name String) ENGINE = TinyLog`,
            ...(CLICKHOUSE_MIGRATIONS[0]?.statements(db) ?? []),
            sql`INSERT INTO ${db}.schema_migrations VALUES (1, 'version 1')`,
          ];
          if (provisioned.cluster) {
            const cluster = sqlIdentifier(provisioned.cluster);
            statements.push(
              ...distributedTables(db, cluster),
              sql`CREATE TABLE ${db}.visitor_stats AS ${db}.visitor_stats_local
                ENGINE = Distributed(${cluster}, ${database}, 'visitor_stats_local')`,
            );
          }
          for (const statement of statements) await run(statement.text);
        });
        const next = random(5);
        const pool = visitorPool(next);
        const events = randomEvents(next, 600, { start: START, days: 4, visitor: () => pick(next, pool) });
        await house.insert(columnsOf(events));
        let held = 0;
        await onNodes<{ n: string }>(provisioned, async (run) => {
          held += Number((await run(`SELECT count() AS n FROM ${database}.visitor_stats_local`))[0]?.n);
        });
        assert.ok(held > 0, "version 1's visitor states hold the events");

        await house.migrate();
        await onNodes<{ version: number; tables: string }>(provisioned, async (run) => {
          const versions = await run(`SELECT version FROM ${database}.schema_migrations ORDER BY version`);
          assert.deepEqual(
            versions.map((row) => Number(row.version)),
            CLICKHOUSE_MIGRATIONS.map((migration) => migration.version),
            "every version since applied",
          );
          const [left] = await run(
            `SELECT count() AS tables FROM system.tables WHERE database = '${database}' AND name LIKE 'visitor_stats%'`,
          );
          assert.equal(Number(left?.tables), 0, "version 1's visitor tables and view are gone");
        });
        for (const websiteId of [1, 2])
          assert.deepEqual(await answers(house, websiteId), await answers(reference(events), websiteId));
        assert.ok((await house.folder.fold()) > 0);
        for (const websiteId of [1, 2])
          assert.deepEqual(await answers(house, websiteId), await answers(reference(events), websiteId));
      } finally {
        await house.close();
        await provisioned.dispose();
      }
    });
  });
}
