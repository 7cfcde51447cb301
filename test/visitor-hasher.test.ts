// Visitor ids: a keyed hash with a daily salt kept in the metadata store for 48 hours and
// shared by every server; older days get a salt that lives only for one import.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { loadConfig } from "../src/config.js";
import { type SaltScope, VisitorHasher } from "../src/ingest/visitor-hasher.js";
import { openMetadataStore } from "../src/storage/open-storage.js";
import type { MetadataStore } from "../src/storage/ports.js";
import { tempDir } from "./support/test-app.js";
import { freshMetadata, type TestMetadata } from "./support/test-metadata.js";

const UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";

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
      a.visitorId(now, 1, "81.2.69.142", UA),
      b.visitorId(now, 1, "81.2.69.142", UA),
    ]);
    assert.equal(fromA, fromB, "both servers agree on the day's salt");
    assert.equal(await a.visitorId(new Date("2026-06-01T23:59:59Z"), 1, "81.2.69.142", UA), fromA);
    assert.notEqual(await a.visitorId(now, 2, "81.2.69.142", UA), fromA, "another website");
    assert.notEqual(await a.visitorId(now, 1, "81.2.69.143", UA), fromA, "another address");
    assert.notEqual(await a.visitorId(now, 1, "81.2.69.142", `${UA} x`), fromA, "another browser");
    assert.notEqual(
      await a.visitorId(new Date("2026-06-02T00:00:00Z"), 1, "81.2.69.142", UA),
      fromA,
      "next day",
    );
  });

  it("hashes without waiting once the day's salt is loaded, to the same id", async () => {
    const clock = new ManualClock("2026-06-10T10:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const now = clock.now();
    assert.equal(hasher.visitorIdNow(now, 1, "81.2.69.142", UA), undefined, "the salt is not loaded yet");
    const id = await hasher.visitorId(now, 1, "81.2.69.142", UA);
    assert.equal(hasher.visitorIdNow(now, 1, "81.2.69.142", UA), id);
    const yesterday = new Date("2026-06-09T08:00:00Z");
    assert.equal(
      hasher.visitorIdNow(yesterday, 1, "81.2.69.142", UA),
      undefined,
      "each day has its own salt",
    );
    const old = new Date("2026-05-01T08:00:00Z");
    const scope = new Map();
    const fromScope = hasher.visitorIdNow(old, 1, "81.2.69.142", UA, scope);
    assert.equal(typeof fromScope, "bigint", "older days use the scope's salt, always at hand");
    assert.equal(await hasher.visitorId(old, 1, "81.2.69.142", UA, scope), fromScope);
  });

  it("deletes a day's salt after 48 hours, so its ids can never be recomputed", async () => {
    const clock = new ManualClock("2026-07-01T12:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const day1 = await hasher.visitorId(clock.now(), 1, "8.8.8.8", UA);
    clock.set("2026-07-02T12:00:00Z");
    assert.equal(
      await hasher.visitorId(new Date("2026-07-01T12:00:00Z"), 1, "8.8.8.8", UA),
      day1,
      "yesterday's salt is still kept",
    );
    clock.set("2026-07-03T00:00:01Z");
    await hasher.visitorId(clock.now(), 1, "8.8.8.8", UA); // the new day's first hit prunes old salts
    assert.equal(
      await first.salts.getOrCreate("2026-07-01", "probe", clock.now()),
      "probe",
      "day 1's salt is gone",
    );
    const again = new VisitorHasher(second.salts, clock);
    assert.notEqual(await again.visitorId(new Date("2026-07-01T12:00:00Z"), 1, "8.8.8.8", UA), day1);
  });

  it("uses one transient salt per day within a scope, and none is stored", async () => {
    const clock = new ManualClock("2026-08-10T12:00:00Z");
    const hasher = new VisitorHasher(first.salts, clock);
    const old = new Date("2026-01-01T00:00:00Z");
    const scope: SaltScope = new Map();
    const one = await hasher.visitorId(old, 1, "8.8.8.8", UA, scope);
    assert.equal(await hasher.visitorId(old, 1, "8.8.8.8", UA, scope), one);
    assert.notEqual(await hasher.visitorId(old, 1, "8.8.8.8", UA, new Map()), one);
    assert.equal(await first.salts.getOrCreate("2026-01-01", "probe", clock.now()), "probe");
  });
});
