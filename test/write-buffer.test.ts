// The write buffer over the real DuckDB store: it flushes on size, on its interval and on
// close, and keeps events through a failed write until a later one succeeds.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { UnstoredError, WriteBuffer } from "../src/ingest/write-buffer.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import { fromColumns } from "../src/storage/event-columns.js";
import type { EventColumns, EventStore, StoredEvent } from "../src/storage/ports.js";
import { storedEvents } from "./support/stored-events.js";
import { tempDir } from "./support/test-app.js";

function sample(websiteId: number, i: number): StoredEvent {
  return {
    websiteId,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    visitor: BigInt(i),
    kind: "pageview",
    isVisit: true,
    page: `/p/${i}`,
    referrer: "",
    campaign: "",
    browser: "Chrome",
    os: "Linux",
    device: "desktop",
    resolution: "",
    language: "en",
    country: "",
    city: "",
    continent: "",
    event: "",
  };
}

/** A promise that stays pending until `open()` is called: holds a write at one step. */
function heldGate(): { gate: Promise<void>; open: () => void } {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate, open };
}

/** The real store, made to fail its next `failures` inserts. */
class FlakyStore implements EventStore {
  constructor(
    private readonly real: EventStore,
    public failures: number,
  ) {}
  insert(batch: EventColumns) {
    if (this.failures > 0) {
      this.failures -= 1;
      return Promise.reject(new Error("disk unavailable"));
    }
    return this.real.insert(batch);
  }
  migrate = () => this.real.migrate();
  queryStat = (query: Parameters<EventStore["queryStat"]>[0]) => this.real.queryStat(query);
  queryDays = (query: Parameters<EventStore["queryDays"]>[0]) => this.real.queryDays(query);
  queryStats = (batch: Parameters<EventStore["queryStats"]>[0]) => this.real.queryStats(batch);
  queryRealtime = (query: Parameters<EventStore["queryRealtime"]>[0]) => this.real.queryRealtime(query);
  rebuildAggregates = (id?: number) => this.real.rebuildAggregates(id);
  deleteWebsite = (id: number) => this.real.deleteWebsite(id);
  setZone = (id: number, zone: string) => this.real.setZone(id, zone);
  countEvents = (id?: number) => this.real.countEvents(id);
  exportEvents = (options?: Parameters<EventStore["exportEvents"]>[0]) => this.real.exportEvents(options);
  ping = () => this.real.ping();
  close = () => this.real.close();
}

describe("write buffer", () => {
  const dir = tempDir();
  let store: DuckDbEventStore;
  before(async () => {
    store = await DuckDbEventStore.open(dir);
    await store.migrate();
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("flushes when full", async () => {
    const buffer = new WriteBuffer(store, { maxEvents: 10, intervalMs: 60_000 });
    for (let i = 0; i < 9; i++) buffer.add(sample(1, i));
    assert.equal(await store.countEvents(1), 0);
    buffer.add(sample(1, 9));
    await buffer.flush();
    assert.equal(await store.countEvents(1), 10);
    await buffer.close();
  });

  it("flushes on its interval", async () => {
    const buffer = new WriteBuffer(store, { maxEvents: 1000, intervalMs: 50 });
    buffer.add(sample(2, 0));
    for (let i = 0; i < 100 && (await store.countEvents(2)) === 0; i++) await sleep(20);
    assert.equal(await store.countEvents(2), 1);
    await buffer.close();
  });

  it("writes everything still buffered on close", async () => {
    const buffer = new WriteBuffer(store, { maxEvents: 100_000, intervalMs: 60_000 });
    for (let i = 0; i < 5000; i++) buffer.add(sample(3, i));
    await buffer.close();
    assert.equal(await store.countEvents(3), 5000);
    assert.throws(() => buffer.add(sample(3, 0)), /closed/);
  });

  it("keeps events through failed writes, in order", async () => {
    const flaky = new FlakyStore(store, 2);
    const errors: unknown[] = [];
    const buffer = new WriteBuffer(flaky, {
      maxEvents: 100_000,
      intervalMs: 60_000,
      onError: (e) => errors.push(e),
    });
    buffer.add(sample(4, 0));
    await assert.rejects(buffer.flush(), /disk unavailable/);
    buffer.add(sample(4, 1));
    await assert.rejects(buffer.flush(), /disk unavailable/);
    assert.equal(buffer.size, 2);
    buffer.add(sample(4, 2));
    await buffer.flush();
    assert.equal(buffer.size, 0);
    assert.deepEqual(
      (await storedEvents(store, 4)).map((e) => e.page),
      ["/p/0", "/p/1", "/p/2"],
    );
    await buffer.close();
  });

  it("prepares items once: a failed prepare keeps the items, a failed insert the prepared events", async () => {
    const flaky = new FlakyStore(store, 0);
    const prepared: string[][] = [];
    let failPrepare = true;
    const buffer = new WriteBuffer<{ websiteId: number; i: number }>(flaky, {
      maxEvents: 100_000,
      intervalMs: 60_000,
      prepare: async (items) => {
        if (failPrepare) throw new Error("salts unavailable");
        prepared.push(items.map((item) => `/p/${item.i}`));
        return items.map((item) => sample(item.websiteId, item.i));
      },
    });
    buffer.add({ websiteId: 7, i: 0 });
    await assert.rejects(buffer.flush(), /salts unavailable/);
    assert.equal(buffer.size, 1, "the item is kept");
    failPrepare = false;
    flaky.failures = 1;
    buffer.add({ websiteId: 7, i: 1 });
    await assert.rejects(buffer.flush(), /disk unavailable/);
    assert.equal(buffer.size, 2, "the prepared events are kept");
    buffer.add({ websiteId: 7, i: 2 });
    await buffer.flush();
    assert.equal(buffer.size, 0);
    assert.deepEqual(prepared, [["/p/0", "/p/1"], ["/p/2"]], "nothing was prepared twice");
    assert.deepEqual(
      (await storedEvents(store, 7)).map((e) => e.page),
      ["/p/0", "/p/1", "/p/2"],
    );
    await buffer.close();
  });

  it("discards the buffered items of a deleted website, prepared or not", async () => {
    const flaky = new FlakyStore(store, 1);
    const buffer = new WriteBuffer<{ websiteId: number; i: number }>(flaky, {
      maxEvents: 100_000,
      intervalMs: 60_000,
      prepare: async (items) => items.map((item) => sample(item.websiteId, item.i)),
    });
    buffer.add({ websiteId: 8, i: 0 });
    buffer.add({ websiteId: 9, i: 0 });
    await assert.rejects(buffer.flush(), /disk unavailable/); // both now prepared
    buffer.add({ websiteId: 8, i: 1 });
    buffer.add({ websiteId: 9, i: 1 });
    buffer.discardWebsite(8);
    assert.equal(buffer.size, 2);
    await buffer.close();
    assert.equal(await store.countEvents(8), 0);
    assert.equal(await store.countEvents(9), 2);
  });

  /** The real store, each insert held until `gate` opens, then told to `stored`. */
  function heldStore(gate: Promise<void>, stored: (events: readonly StoredEvent[]) => void): EventStore {
    const held = new FlakyStore(store, 0);
    held.insert = async (batch) => {
      await gate;
      await store.insert(batch);
      stored(fromColumns(batch));
    };
    return held;
  }

  it("makes callers wait for the running write once its backlog is full, and only then", async () => {
    const { gate, open } = heldGate();
    let stored = 0;
    const gated = heldStore(gate, (events) => {
      stored += events.length;
    });
    const told: number[] = [];
    const buffer = new WriteBuffer(gated, {
      maxEvents: 10,
      maxBacklog: 20,
      intervalMs: 60_000,
      onBackPressure: (size) => told.push(size),
    });
    const waits = Array.from({ length: 20 }, (_, i) => buffer.add(sample(10, i)));
    assert.deepEqual(new Set(waits), new Set([true]), "kept without waiting up to the backlog");
    assert.deepEqual(told, []);
    const paused = buffer.add(sample(10, 20));
    assert.ok(paused instanceof Promise, "the 21st item waits");
    assert.ok(buffer.add(sample(10, 21)) instanceof Promise, "and so does the 22nd");
    assert.deepEqual(told, [20], "told once, when the waiting began, with the items not stored yet");
    let storedWhenResumed = -1;
    void paused.then(() => {
      storedWhenResumed = stored;
    });
    await sleep(30);
    assert.equal(storedWhenResumed, -1, "still waiting while the write is held");
    open();
    await paused;
    assert.equal(storedWhenResumed, 10, "resumed when the running write (10 items) ended");
    await buffer.close();
    assert.equal(await store.countEvents(10), 22);
  });

  it("answers every flush asked for during a write with one write after it", async () => {
    const { gate, open } = heldGate();
    const batches: number[] = [];
    const gated = heldStore(gate, (events) => batches.push(events.length));
    const buffer = new WriteBuffer(gated, { maxEvents: 5, maxBacklog: 1_000, intervalMs: 60_000 });
    for (let i = 0; i < 5; i++) buffer.add(sample(13, i)); // the fifth starts a write, held
    // Each add past maxEvents asks for a flush while the write is held, as do these calls.
    for (let i = 5; i < 40; i++) buffer.add(sample(13, i));
    const flushes = [buffer.flush(), buffer.flush(), buffer.flush()];
    assert.equal(new Set(flushes).size, 1, "one write answers them all");
    open();
    await Promise.all(flushes);
    assert.deepEqual(batches, [5, 35], "the running write, then one with everything added meanwhile");
    assert.equal(await store.countEvents(13), 40);
    await buffer.close();
  });

  it("reports a failed write once, however many hits asked for it", async () => {
    const { gate, open } = heldGate();
    const flaky = new FlakyStore(store, 2);
    const insert = flaky.insert.bind(flaky);
    flaky.insert = async (events) => {
      await gate;
      return insert(events);
    };
    const errors: unknown[] = [];
    const buffer = new WriteBuffer(flaky, {
      maxEvents: 2,
      maxBacklog: 1_000,
      intervalMs: 60_000,
      onError: (error) => errors.push(error),
    });
    for (let i = 0; i < 2; i++) buffer.add(sample(14, i)); // starts a write, held
    for (let i = 2; i < 12; i++) buffer.add(sample(14, i)); // each past maxEvents: one write queued
    open();
    await assert.rejects(buffer.flush(), /disk unavailable/); // the queued write fails too
    assert.equal(errors.length, 2, "the running write's failure and the queued one's");
    await buffer.close();
    assert.equal(await store.countEvents(14), 12, "nothing lost");
  });

  it("leaves out the events of a website deleted while its items were being prepared", async () => {
    const { gate, open } = heldGate();
    const buffer = new WriteBuffer<{ websiteId: number; i: number }>(store, {
      maxEvents: 100_000,
      intervalMs: 60_000,
      prepare: async (items) => {
        await gate;
        return items.map((item) => sample(item.websiteId, item.i));
      },
    });
    buffer.add({ websiteId: 11, i: 0 });
    buffer.add({ websiteId: 12, i: 0 });
    const written = buffer.flush();
    buffer.discardWebsite(11); // while the write prepares both
    open();
    await written;
    assert.equal(await store.countEvents(11), 0);
    assert.equal(await store.countEvents(12), 1);
    await buffer.close();
  });

  it("keeps at most its backlog while writes fail, refuses the rest, and takes items again once a write succeeds", async () => {
    const flaky = new FlakyStore(store, 1_000);
    let refused = 0;
    let recovered = 0;
    const buffer = new WriteBuffer(flaky, {
      maxEvents: 10,
      maxBacklog: 20,
      intervalMs: 60_000,
      onRefused: () => refused++,
      onRecovered: () => recovered++,
    });
    for (let i = 0; i < 5; i++) assert.equal(buffer.add(sample(15, i)), true);
    await assert.rejects(buffer.flush(), /disk unavailable/);
    assert.ok(buffer.failing instanceof Error, "the buffer knows writes fail");
    // Kept while there is room (a write is asked for at 10 and fails: they stay).
    for (let i = 5; i < 20; i++) assert.equal(buffer.add(sample(15, i)), true, `item ${i} is kept`);
    await buffer.flush().catch(() => undefined);
    assert.equal(buffer.size, 20);
    assert.equal(buffer.add(sample(15, 20)), false, "refused at once: no room and writes fail");
    assert.equal(buffer.add(sample(15, 21)), false);
    assert.equal(buffer.size, 20, "the buffer stays at its backlog");
    assert.equal(refused, 2);
    flaky.failures = 0;
    await buffer.flush();
    assert.equal(buffer.failing, null);
    assert.equal(recovered, 1, "told once that writes succeed again");
    assert.equal(await store.countEvents(15), 20, "every kept item is stored, no refused one");
    assert.equal(buffer.add(sample(15, 22)), true, "items are kept again");
    await buffer.close();
    assert.equal(await store.countEvents(15), 21);
  });

  it("refuses a waiting caller's item when the write it waited for fails and there is still no room", async () => {
    const { gate, open } = heldGate();
    const flaky = new FlakyStore(store, 1);
    const insert = flaky.insert.bind(flaky);
    flaky.insert = async (events) => {
      await gate;
      return insert(events);
    };
    const buffer = new WriteBuffer(flaky, { maxEvents: 10, maxBacklog: 20, intervalMs: 60_000 });
    for (let i = 0; i < 20; i++) buffer.add(sample(16, i)); // the tenth starts a write, held
    const waiting = buffer.add(sample(16, 20));
    assert.ok(waiting instanceof Promise, "the store was not known to fail: the caller waits");
    open();
    assert.equal(await waiting, false, "the write failed and the buffer is still full: refused");
    assert.equal(buffer.size, 20);
    await buffer.close();
    assert.equal(await store.countEvents(16), 20, "the 20 kept items, not the refused one");
  });

  it("retries failed writes on close for the time it is given", async () => {
    const flaky = new FlakyStore(store, 3);
    const buffer = new WriteBuffer(flaky, { maxEvents: 100, intervalMs: 60_000 });
    for (let i = 0; i < 5; i++) buffer.add(sample(17, i));
    await buffer.close(10_000);
    assert.equal(flaky.failures, 0, "three failed writes, then one that succeeded");
    assert.equal(await store.countEvents(17), 5);
  });

  it("says on close how many kept items it could not store in time", async () => {
    const flaky = new FlakyStore(store, 1_000);
    const buffer = new WriteBuffer(flaky, { maxEvents: 100, intervalMs: 60_000 });
    for (let i = 0; i < 5; i++) buffer.add(sample(18, i));
    const started = Date.now();
    const error = await buffer.close(300).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof UnstoredError, `an UnstoredError, not ${String(error)}`);
    assert.equal(error.count, 5);
    assert.match(error.message, /^5 acknowledged hits could not be stored: disk unavailable$/);
    // Bounds the retrying, not the machine's speed: 300 ms asked for, far less than 10 s.
    assert.ok(Date.now() - started < 10_000, "close gave up once its time was over");
    assert.ok(1_000 - flaky.failures > 1, "it retried meanwhile");
  });

  it("discards the buffered events of a deleted website only", async () => {
    const buffer = new WriteBuffer(store, { maxEvents: 100_000, intervalMs: 60_000 });
    buffer.add(sample(5, 0));
    buffer.add(sample(6, 0));
    buffer.discardWebsite(5);
    await buffer.close();
    assert.equal(await store.countEvents(5), 0);
    assert.equal(await store.countEvents(6), 1);
  });
});
