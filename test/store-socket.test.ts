// The embedded store's control socket: what the CLI uses while a server holds the store.
// Every call through RemoteEventStore must give what the store itself gives; malformed
// calls are refused without touching the store.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { STATS } from "../src/stats/catalog.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import { RemoteEventStore } from "../src/storage/duckdb/remote-event-store.js";
import { serveStoreSocket, storeSocketPath } from "../src/storage/duckdb/store-socket.js";
import { eventToWire } from "../src/storage/duckdb/store-socket-wire.js";
import { columnsOf } from "../src/storage/event-columns.js";
import type { Closable } from "../src/storage/event-engine.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { storedEvents } from "./support/stored-events.js";
import { tempDir } from "./support/test-app.js";

const DAY = Date.UTC(2026, 3, 1);

function event(i: number): StoredEvent {
  return {
    websiteId: 1 + (i % 2),
    ts: new Date(DAY + (i % 3) * 86_400_000 + i * 1000),
    visitor: (1n << 63n) + BigInt(i % 7), // above 2^53: must survive the trip exactly
    kind: i % 5 === 0 ? "event" : "pageview",
    isVisit: i % 3 === 0 && i % 5 !== 0,
    page: `/p/${i % 4}?q="'\\`,
    referrer: i % 3 === 0 ? "news.example" : "",
    campaign: "",
    browser: "Firefox",
    os: "Linux",
    device: "desktop",
    resolution: "1920x1080",
    language: "en",
    country: "DE:Germany",
    city: "DE:Berlin",
    continent: "EU:Europe",
    event: i % 5 === 0 ? "Signup::" : "",
  };
}

describe("the embedded store's control socket", () => {
  const dir = tempDir("analytics-socket-");
  let store: DuckDbEventStore;
  let socket: Closable;
  let remote: RemoteEventStore;
  const sent = Array.from({ length: 60 }, (_, i) => event(i));

  before(async () => {
    store = await DuckDbEventStore.open(dir);
    await store.migrate();
    socket = await serveStoreSocket(store, dir);
    remote = new RemoteEventStore(storeSocketPath(dir));
  });

  after(async () => {
    await remote.close();
    await socket.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is a socket only its owner may use", () => {
    const stat = fs.statSync(storeSocketPath(dir));
    assert.ok(stat.isSocket());
    assert.equal(stat.mode & 0o077, 0);
  });

  it("stores, counts, lists, exports and answers statistics as the store does", async () => {
    assert.equal(await RemoteEventStore.answers(storeSocketPath(dir)), true);
    await remote.insert(columnsOf(sent));
    assert.equal(await remote.countEvents(), sent.length);
    assert.equal(await remote.countEvents(2), await store.countEvents(2));
    assert.deepEqual(await storedEvents(remote, 1), await storedEvents(store, 1));
    const exported: StoredEvent[] = [];
    for await (const batch of remote.exportEvents({ websiteId: 2 })) exported.push(...batch);
    const direct: StoredEvent[] = [];
    for await (const batch of store.exportEvents({ websiteId: 2 })) direct.push(...batch);
    assert.deepEqual(exported, direct);
    assert.ok(exported.some((e) => e.page === `/p/1?q="'\\`));
    for (const stat of STATS) {
      const query = {
        websiteId: 1,
        stat,
        from: "2026-04-01",
        to: "2026-04-03",
        filters: [],
        zone: "UTC",
        search: null,
        sortBy: "count" as const,
        sort: "desc" as const,
        limit: 10,
        offset: 0,
      };
      assert.deepEqual(await remote.queryStat(query), await store.queryStat(query), stat.name);
    }
    const days = {
      websiteId: 1,
      stats: STATS.filter((stat) => stat.dimension === "day"),
      from: "2026-04-01",
      to: "2026-04-03",
      filters: [],
      zone: "UTC",
    };
    const answered = await remote.queryDays(days);
    assert.ok(
      Object.values(answered).some((byDay) => Object.keys(byDay).length > 0),
      "days counted",
    );
    assert.deepEqual(answered, await store.queryDays(days), "statistics of days");
    await remote.rebuildAggregates(1);
    await remote.deleteWebsite(2);
    assert.equal(await store.countEvents(2), 0);
  });

  it("refuses unknown calls and malformed events, storing nothing", async () => {
    const before = await store.countEvents();
    const post = (path: string, body: unknown) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(
          { socketPath: storeSocketPath(dir), path, method: "POST" },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on("error", reject);
        request.end(JSON.stringify(body));
      });
    assert.equal(await post("/call", { method: "close", args: [] }), 404);
    assert.equal(await post("/call", { method: "insert", args: [[{ websiteId: 1 }]] }), 500);
    assert.equal(
      await post("/call", { method: "insert", args: [[{ ...eventToWire(event(1)), kind: "click" }]] }),
      500,
    );
    assert.equal(await post("/elsewhere", {}), 404);
    assert.equal(await store.countEvents(), before);
  });

  it("answers no more once closed, and a new server replaces a stale socket file", async () => {
    const other = tempDir("analytics-socket-stale-");
    fs.writeFileSync(storeSocketPath(other), "left behind");
    const otherStore = await DuckDbEventStore.open(other);
    const otherSocket = await serveStoreSocket(otherStore, other);
    assert.equal(await RemoteEventStore.answers(storeSocketPath(other)), true);
    await otherSocket.close();
    assert.equal(await RemoteEventStore.answers(storeSocketPath(other)), false);
    await otherStore.close();
    fs.rmSync(other, { recursive: true, force: true });
  });
});
