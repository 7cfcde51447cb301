// What the ClickHouse engine adds to the EventStore contract (event-store-contract.test.ts
// runs every common case against it): a one-server setup without a cluster works with local
// tables alone; an export reads one website's day at a time; an unknown cluster is refused
// before anything is created; and the health check fails when a node stops answering.
// Needs the test cluster (.ci/run).

import assert from "node:assert/strict";
import net from "node:net";
import { describe, it } from "node:test";
import { ConfigError } from "../src/config.js";
import { STATS } from "../src/stats/catalog.js";
import { ClickHouseEventStore } from "../src/storage/clickhouse/clickhouse-event-store.js";
import { columnsOf } from "../src/storage/event-columns.js";
import type { EventStore, StoredEvent } from "../src/storage/ports.js";
import { CLICKHOUSE_URLS, clickhouseMissing, provisionClickHouse } from "./support/event-stores.js";
import { referenceStat } from "./support/reference-stats.js";
import { pick, random, randomEvents } from "./support/seeded-random.js";
import { EVERY_ROW } from "./support/stat-answers.js";
import { createTestApp } from "./support/test-app.js";

const missing = clickhouseMissing();

const START = Date.UTC(2026, 5, 10);
const WHOLE = { from: "2026-06-01", to: "2026-06-30" };
const PAGE = EVERY_ROW;

/** Random events of websites 1 and 2 over three days from START, by 30 visitors. */
function eventsOf(seed: number, count: number): StoredEvent[] {
  const next = random(seed);
  const visitors = Array.from({ length: 30 }, () => BigInt(Math.floor(next() * 2 ** 52)));
  return randomEvents(next, count, { start: START, days: 3, visitor: () => pick(next, visitors) });
}

/** Every statistic of a website over June, and what the catalog's definitions give. */
async function compare(store: EventStore, events: readonly StoredEvent[], websiteId: number) {
  for (const stat of STATS) {
    const query = { websiteId, stat, ...WHOLE, ...PAGE };
    assert.deepEqual(
      await store.queryStat(query),
      referenceStat(events, query),
      `${stat.name} of ${websiteId}`,
    );
  }
}

describe("ClickHouse event store on one server (no cluster)", { skip: missing ?? false }, () => {
  it("stores, answers, rebuilds and deletes with local tables alone", async () => {
    const provisioned = await provisionClickHouse();
    const house = new ClickHouseEventStore({ urls: [provisioned.urls[0] as string], cluster: null });
    try {
      await house.migrate();
      const events = eventsOf(11, 300);
      await house.insert(columnsOf(events));
      await compare(house, events, 1);
      await house.rebuildAggregates(2);
      await compare(house, events, 2);
      await house.deleteWebsite(2);
      assert.equal(await house.countEvents(2), 0);
      assert.equal(await house.countEvents(), events.filter((event) => event.websiteId === 1).length);
    } finally {
      await house.close();
      await provisioned.dispose();
    }
  });
});

describe("ClickHouse export", { skip: missing ?? false }, () => {
  it("reads one website's day at a time, so memory holds a day's events at most", async () => {
    const provisioned = await provisionClickHouse();
    const house = new ClickHouseEventStore({ urls: provisioned.urls, cluster: provisioned.cluster });
    try {
      await house.migrate();
      const events = eventsOf(7, 400);
      await house.insert(columnsOf(events));
      const batches: StoredEvent[][] = [];
      for await (const batch of house.exportEvents()) batches.push(batch);
      assert.equal(batches.length, 6, "two websites, three days each");
      for (const batch of batches) {
        const days = new Set(
          batch.map((event) => `${event.websiteId} ${event.ts.toISOString().slice(0, 10)}`),
        );
        assert.equal(days.size, 1, "a batch holds one website's day");
      }
      assert.equal(batches.flat().length, events.length);
    } finally {
      await house.close();
      await provisioned.dispose();
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
