// The ClickHouse event store against the embedded one: random traffic in random batches
// must give identical answers for every statistic (sorted, searched, paged), before and
// after rebuilding the aggregates; deleting a website removes its events and numbers at
// once; events read back unchanged; a one-server setup (no cluster) works the same; and
// the health check fails when ClickHouse stops answering. On the configured ClickHouse
// (.ci/run: a cluster of 18.16) and on a current engine (chdb) alike.

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { ConfigError } from "../src/config.js";
import { STATS } from "../src/stats/catalog.js";
import { ClickHouseEventStore } from "../src/storage/clickhouse/clickhouse-event-store.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import type { StoredEvent } from "../src/storage/ports.js";
import {
  CLICKHOUSE_ENGINES,
  CLICKHOUSE_URLS,
  clickhouseMissing,
  provisionClickHouse,
} from "./support/event-stores.js";
import { pick, random, randomEvents } from "./support/seeded-random.js";
import { answers, VARIANTS, visitorPool } from "./support/stat-answers.js";
import { createTestApp, tempDir } from "./support/test-app.js";

const missing = clickhouseMissing();

const START = Date.UTC(2026, 5, 10);

/** Random events over three days from START, by visitors of the pool. */
function eventsOf(next: () => number, count: number, visitors: bigint[]): StoredEvent[] {
  return randomEvents(next, count, { start: START, days: 3, visitor: () => pick(next, visitors) });
}

const byTime = (a: StoredEvent, b: StoredEvent) =>
  a.ts.getTime() - b.ts.getTime() || JSON.stringify(a, replacer).localeCompare(JSON.stringify(b, replacer));
const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

for (const engine of CLICKHOUSE_ENGINES)
  describe(`ClickHouse event store (${engine.name})`, { skip: engine.skip }, () => {
    let duck: DuckDbEventStore;
    let house: ClickHouseEventStore;
    let dispose: () => Promise<void>;
    const dir = tempDir("analytics-clickhouse-");
    const sent: StoredEvent[] = [];

    before(async () => {
      const provisioned = await provisionClickHouse(engine);
      dispose = provisioned.dispose;
      house = new ClickHouseEventStore({ urls: provisioned.urls, cluster: provisioned.cluster });
      duck = await DuckDbEventStore.open(dir, { clock: new ManualClock(new Date(START + 2.5 * 86_400_000)) });
      await Promise.all([house.migrate(), duck.migrate()]);
      await house.migrate(); // a second migrate changes nothing
      const next = random(7);
      const visitors = visitorPool(next);
      for (let round = 0; round < 5; round++) {
        const batch = eventsOf(next, 1 + Math.floor(next() * 400), visitors);
        await Promise.all([house.insert(batch), duck.insert(batch)]);
        sent.push(...batch);
      }
    });
    after(async () => {
      await house?.close();
      await duck?.close();
      await dispose?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("gives the embedded store's answers for every statistic, sorted, searched and paged", async () => {
      assert.equal(await house.countEvents(), sent.length);
      for (const websiteId of [1, 2]) {
        assert.equal(
          await house.countEvents(websiteId),
          sent.filter((e) => e.websiteId === websiteId).length,
        );
        assert.deepEqual(
          await answers(house, websiteId),
          await answers(duck, websiteId),
          `website ${websiteId}`,
        );
        const oneDay = new Date(START + 86_400_000).toISOString().slice(0, 10);
        assert.deepEqual(
          await answers(house, websiteId, oneDay, oneDay),
          await answers(duck, websiteId, oneDay, oneDay),
        );
      }
    });

    it("gives back the stored events unchanged, in time order", async () => {
      const stored = await house.listEvents(2);
      const expected = sent.filter((event) => event.websiteId === 2);
      assert.deepEqual([...stored].sort(byTime), [...expected].sort(byTime));
      for (let i = 1; i < stored.length; i++) {
        assert.ok((stored[i - 1] as StoredEvent).ts <= (stored[i] as StoredEvent).ts, "time order");
      }
    });

    it("exports every stored event, website by website and day by day, within a range of days", async () => {
      const batches: StoredEvent[][] = [];
      for await (const batch of house.exportEvents()) batches.push(batch);
      assert.ok(batches.length > 2, "one batch per website and day");
      for (const batch of batches) {
        const days = new Set(
          batch.map((event) => `${event.websiteId} ${event.ts.toISOString().slice(0, 10)}`),
        );
        assert.equal(days.size, 1, "a batch holds one website's day");
      }
      assert.deepEqual(batches.flat().sort(byTime), [...sent].sort(byTime));

      const day = new Date(START + 86_400_000).toISOString().slice(0, 10);
      const oneDay: StoredEvent[] = [];
      for await (const batch of house.exportEvents({ websiteId: 2, from: day, to: day }))
        oneDay.push(...batch);
      const expected = sent.filter((e) => e.websiteId === 2 && e.ts.toISOString().slice(0, 10) === day);
      assert.ok(expected.length > 0);
      assert.deepEqual(oneDay.sort(byTime), [...expected].sort(byTime));
    });

    it("gives the same answers after rebuilding the aggregates of one website and of all", async () => {
      const before1 = await answers(house, 1);
      const before2 = await answers(house, 2);
      await house.rebuildAggregates(1);
      assert.deepEqual(await answers(house, 1), before1);
      assert.deepEqual(await answers(house, 2), before2);
      await house.rebuildAggregates();
      assert.deepEqual(await answers(house, 1), before1);
      assert.deepEqual(await answers(house, 2), before2);
    });

    it("deletes a website's events and numbers before returning, and nothing of the others", async () => {
      const others = await answers(house, 2);
      await house.deleteWebsite(1);
      assert.equal(await house.countEvents(1), 0);
      assert.deepEqual(await house.listEvents(1), []);
      for (const stat of STATS) {
        const page = await house.queryStat({
          websiteId: 1,
          stat,
          from: "2026-01-01",
          to: "2026-12-31",
          ...(VARIANTS[0] as (typeof VARIANTS)[0]),
        });
        assert.deepEqual(page, { rows: [], total: 0 }, stat.name);
      }
      assert.deepEqual(await answers(house, 2), others);
      await house.rebuildAggregates(); // a deleted website does not come back from a rebuild
      assert.deepEqual((await answers(house, 1))["page/0"], { rows: [], total: 0 });
    });
  });

describe("ClickHouse event store on one server (no cluster)", { skip: missing ?? false }, () => {
  it("stores, answers, rebuilds and deletes with local tables alone", async () => {
    const provisioned = await provisionClickHouse();
    const url = provisioned.urls[0] as string;
    const house = new ClickHouseEventStore({ urls: [url], cluster: null });
    const dir = tempDir("analytics-clickhouse-");
    const duck = await DuckDbEventStore.open(dir, { clock: new ManualClock(new Date(START)) });
    try {
      await Promise.all([house.migrate(), duck.migrate()]);
      const next = random(11);
      const batch = eventsOf(next, 300, visitorPool(next));
      await Promise.all([house.insert(batch), duck.insert(batch)]);
      assert.deepEqual(await answers(house, 1), await answers(duck, 1));
      await house.rebuildAggregates(2);
      assert.deepEqual(await answers(house, 2), await answers(duck, 2));
      await house.deleteWebsite(2);
      assert.equal(await house.countEvents(2), 0);
      assert.equal(await house.countEvents(), batch.filter((event) => event.websiteId === 1).length);
    } finally {
      await house.close();
      await duck.close();
      await provisioned.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ClickHouse migrate with an unknown cluster", { skip: missing ?? false }, () => {
  it("refuses before creating anything, naming the setting", async () => {
    const provisioned = await provisionClickHouse();
    const store = new ClickHouseEventStore({ urls: provisioned.urls, cluster: "no_such_cluster" });
    try {
      await assert.rejects(
        store.migrate(),
        (error: Error) => error instanceof ConfigError && /ANALYTICS_CLICKHOUSE_CLUSTER/.test(error.message),
      );
      await assert.rejects(
        store.countEvents(),
        /ClickHouse at .*(Database|Table)/i,
        "no tables were created",
      );
    } finally {
      await store.close();
      await provisioned.dispose();
    }
  });
});

describe("health with ClickHouse", { skip: missing ?? false }, () => {
  it("answers 503 once a ClickHouse node stops answering", async () => {
    // Node 1 reached through a relay this test can cut, the other nodes directly.
    const sockets = new Set<net.Socket>();
    const [host, port] = new URL(CLICKHOUSE_URLS[0] as string).host.split(":") as [string, string];
    const relay = net.createServer((socket) => {
      const upstream = net.connect(Number(port), host);
      for (const end of [socket, upstream]) {
        sockets.add(end);
        end.on("error", () => undefined);
        end.on("close", () => sockets.delete(end));
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const relayPort = (relay.address() as net.AddressInfo).port;
    const provisioned = await provisionClickHouse();
    const urls = provisioned.urls.map((url, i) =>
      i === 0 ? url.replace(`//${host}:${port}`, `//127.0.0.1:${relayPort}`) : url,
    );
    const t = await createTestApp({
      ANALYTICS_CLICKHOUSE_URL: urls.join(","),
      ANALYTICS_CLICKHOUSE_CLUSTER: provisioned.cluster ?? "",
    });
    try {
      assert.equal((await t.app.inject({ url: "/healthz" })).statusCode, 200);
      await new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      const down = await t.app.inject({ url: "/healthz" });
      assert.equal(down.statusCode, 503, down.body);
    } finally {
      await t.close();
      await provisioned.dispose();
    }
  });
});
