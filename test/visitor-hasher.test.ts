// Visitor ids: a keyed hash with a daily salt kept in the metadata store and shared by every
// server: today's and yesterday's for live hits, an older day's for 48 hours after the
// last import that used it.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { loadConfig } from "../src/config.js";
import { GivenSaltsHasher, VisitorHasher } from "../src/ingest/visitor-hasher.js";
import { openMetadataStore } from "../src/storage/open-storage.js";
import type { MetadataStore } from "../src/storage/ports.js";
import { tempDir } from "./support/test-app.js";
import { freshMetadata, type TestMetadata } from "./support/test-metadata.js";

const UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";

/** The UTC date of an instant (Date or ms) as a day number: a salt's day for a website in UTC. */
const d = (instant: Date | number) => Math.floor(new Date(instant).getTime() / 86_400_000);

describe("visitor hasher", () => {
  const dir = tempDir();
  let metadata: TestMetadata;
  let first: MetadataStore;
  let second: MetadataStore; // a second server on the same store
  before(async () => {
    metadata = await freshMetadata();
    const config = loadConfig({ ANALYTICS_DATA_DIR: dir, ...metadata.env });
    first = openMetadataStore(config);
    second = openMetadataStore(config);
  });
  after(async () => {
    await first.close();
    await second.close();
    await metadata.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives one visitor one id per day, the same on every server", async () => {
    await first.migrate();
    const clock = new ManualClock("2026-06-01T10:00:00Z");
    const a = new VisitorHasher(first.salts, clock);
    const b = new VisitorHasher(second.salts, clock);
    const now = clock.now();
    const [fromA, fromB] = await Promise.all([
      a.visitorId(d(now), 1, "81.2.69.142", UA),
      b.visitorId(d(now), 1, "81.2.69.142", UA),
    ]);
    assert.equal(fromA, fromB, "both servers agree on the day's salt");
    assert.equal(await a.visitorId(d(new Date("2026-06-01T23:59:59Z")), 1, "81.2.69.142", UA), fromA);
    assert.notEqual(await a.visitorId(d(now), 2, "81.2.69.142", UA), fromA, "another website");
    assert.notEqual(await a.visitorId(d(now), 1, "81.2.69.143", UA), fromA, "another address");
    assert.notEqual(await a.visitorId(d(now), 1, "81.2.69.142", `${UA} x`), fromA, "another browser");
    assert.notEqual(
      await a.visitorId(d(new Date("2026-06-02T00:00:00Z")), 1, "81.2.69.142", UA),
      fromA,
      "next day",
    );
  });

  it("hashes without waiting once the day's salt is loaded, to the same id", async () => {
    const clock = new ManualClock("2026-06-10T10:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const now = clock.now();
    assert.equal(hasher.visitorIdNow(d(now), 1, "81.2.69.142", UA), undefined, "the salt is not loaded yet");
    const id = await hasher.visitorId(d(now), 1, "81.2.69.142", UA);
    assert.equal(hasher.visitorIdNow(d(now), 1, "81.2.69.142", UA), id);
    const yesterday = new Date("2026-06-09T08:00:00Z");
    assert.equal(
      hasher.visitorIdNow(d(yesterday), 1, "81.2.69.142", UA),
      undefined,
      "each day has its own salt",
    );
  });

  it("keeps tomorrow's salt in memory too, for websites whose zone is ahead of UTC", async () => {
    const clock = new ManualClock("2026-06-20T12:00:00Z"); // 2026-06-21 02:00 in Pacific/Kiritimati (+14)
    const hasher = new VisitorHasher(first.salts, clock);
    const tomorrow = d(Date.parse("2026-06-21T00:00:00Z"));
    const id = await hasher.visitorId(tomorrow, 1, "81.2.69.142", UA);
    assert.equal(hasher.visitorIdNow(tomorrow, 1, "81.2.69.142", UA), id, "no wait for the next hit");
    assert.equal(await new VisitorHasher(second.salts, clock).visitorId(tomorrow, 1, "81.2.69.142", UA), id);
  });

  it("deletes a day's salt after 48 hours, so its ids can never be recomputed", async () => {
    const clock = new ManualClock("2026-07-01T12:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const day1 = await hasher.visitorId(d(clock.now()), 1, "8.8.8.8", UA);
    clock.set("2026-07-02T12:00:00Z");
    assert.equal(
      await hasher.visitorId(d(new Date("2026-07-01T12:00:00Z")), 1, "8.8.8.8", UA),
      day1,
      "yesterday's salt is still kept",
    );
    clock.set("2026-07-03T00:00:01Z");
    await hasher.visitorId(d(clock.now()), 1, "8.8.8.8", UA); // the new day's first hit prunes old salts
    assert.equal(await probe(first, "2026-07-01", clock.now()), "probe", "day 1's salt is gone");
    const again = new VisitorHasher(second.salts, clock);
    assert.notEqual(await again.visitorId(d(new Date("2026-07-01T12:00:00Z")), 1, "8.8.8.8", UA), day1);
  });

  it("keeps an older day's salt for every request of an import, until 48 hours after its last use", async () => {
    const clock = new ManualClock("2026-08-10T12:00:00Z");
    const a = new VisitorHasher(first.salts, clock);
    const b = new VisitorHasher(second.salts, clock); // the next request may reach another server
    const instant = Date.parse("2026-01-01T10:00:00Z");
    const [[day, salt] = ["", ""]] = await a.saltsFor([d(instant), d(instant + 3_600_000)]);
    assert.equal(day, "2026-01-01", "one salt a day, however many events");
    assert.deepEqual(await b.saltsFor([d(instant)]), [[day, salt]], "stored, so every request gets it");
    const threadA = new GivenSaltsHasher();
    threadA.use([[day, salt]]);
    const old = new Date(instant);
    assert.equal(threadA.visitorIdNow(d(old), 1, "8.8.8.8", UA), await a.visitorId(d(old), 1, "8.8.8.8", UA));
    assert.throws(
      () => threadA.visitorIdNow(d(new Date("2026-01-02T00:00:00Z")), 1, "8.8.8.8", UA),
      /no salt/,
    );

    clock.set("2026-08-12T11:59:59Z"); // 47:59:59 after the last use
    assert.deepEqual(await b.saltsFor([d(instant)]), [[day, salt]], "a use keeps it 48 hours more");
    clock.set("2026-08-14T12:00:00Z"); // 48 hours after that use
    await a.visitorId(d(clock.now()), 1, "8.8.8.8", UA); // today's first hit deletes expired salts
    assert.equal(await probe(first, day, clock.now()), "probe", "then it is deleted");
  });

  it("keeps the salt of a day before yesterday used through visitorId like an import's", async () => {
    const clock = new ManualClock("2026-09-10T12:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const old = new Date("2026-09-01T09:00:00Z");
    const id = await hasher.visitorId(d(old), 1, "8.8.8.8", UA);
    assert.equal(await new VisitorHasher(second.salts, clock).visitorId(d(old), 1, "8.8.8.8", UA), id);
  });
});

/** Stores a probe salt for `day` if it has none: "probe" back means the day had no salt. */
async function probe(store: MetadataStore, day: string, now: Date): Promise<string | undefined> {
  const salts = await store.salts.getOrCreate([{ day, candidate: "probe", keepUntil: now }], now);
  return salts.get(day);
}
