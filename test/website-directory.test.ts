// The website directory answers hits from memory: a host looked up before is answered at
// once, also while its refresh waits on a metadata store that does not answer or fails;
// hits for a new host share one lookup; a flood of made-up hosts holds a bounded number of
// lookups and never pushes a website out. The repository here is a stand-in whose lookups
// the test resolves by hand, so each step's order is exact.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { StoreUnavailableError } from "../src/errors.js";
import { MAX_PENDING, WebsiteDirectory } from "../src/ingest/website-directory.js";
import type { WebsiteRecord, WebsiteRepository } from "../src/storage/ports.js";

interface Lookup {
  domain: string;
  resolve: (record: WebsiteRecord | null) => void;
  reject: (error: unknown) => void;
}

/** Website records by domain, each lookup waiting until the test answers it. */
class HeldLookups {
  readonly asked: Lookup[] = [];

  get repository(): WebsiteRepository {
    return {
      findByDomain: (domain: string) =>
        new Promise<WebsiteRecord | null>((resolve, reject) => {
          this.asked.push({ domain, resolve, reject });
        }),
    } as unknown as WebsiteRepository;
  }

  /** Answers the oldest open lookup. */
  next(): Lookup {
    const lookup = this.asked.shift();
    assert.ok(lookup, "a lookup was asked");
    return lookup;
  }
}

function record(id: number, domain: string): WebsiteRecord {
  const now = new Date("2026-03-02T12:00:00Z");
  return {
    id,
    userId: 1,
    domain,
    privacy: 0,
    passwordHash: null,
    passwordEpoch: 0,
    email: 0,
    excludeBots: 1,
    excludeDatacenters: 0,
    excludeParams: null,
    excludeIps: null,
    timezone: "UTC",
    createdAt: now,
    updatedAt: now,
  } as WebsiteRecord;
}

const down = () => new StoreUnavailableError("metadata", "connection refused");
const settle = () => new Promise((resolve) => setImmediate(resolve));

function directory() {
  const lookups = new HeldLookups();
  const clock = new ManualClock("2026-03-02T12:00:00Z");
  const failures: unknown[] = [];
  const websites = new WebsiteDirectory(lookups.repository, clock, (error) => failures.push(error));
  return { lookups, clock, failures, websites };
}

describe("the website directory", () => {
  it("looks a new host up once, however many hits ask at once", async () => {
    const { lookups, websites } = directory();
    assert.equal(websites.known("example.com"), undefined, "never looked up");
    const first = websites.lookUp("example.com");
    const second = websites.lookUp("example.com");
    assert.equal(lookups.asked.length, 1, "one lookup for both hits");
    lookups.next().resolve(record(7, "example.com"));
    assert.equal((await first)?.id, 7);
    assert.equal((await second)?.id, 7);
    assert.equal(websites.known("example.com")?.id, 7);
    assert.equal(websites.lookUp("other.example") instanceof Promise, true);
    lookups.next().resolve(null);
    await settle();
    assert.equal(websites.known("other.example"), null, "a host no website tracks is remembered too");
    assert.equal(lookups.asked.length, 0, "answered from memory since");
  });

  it("answers a known host at once after its 10 seconds, and refreshes it in the background", async () => {
    const { lookups, clock, websites } = directory();
    void websites.lookUp("example.com");
    lookups.next().resolve(record(7, "example.com"));
    await settle();
    clock.advance(11_000);
    assert.equal(websites.known("example.com")?.id, 7, "the last answer, without waiting");
    assert.equal(websites.known("example.com")?.id, 7);
    assert.equal(lookups.asked.length, 1, "one refresh for both hits");
    const refresh = lookups.next();
    assert.equal(refresh.domain, "example.com");
    refresh.resolve(null); // deleted on another server
    await settle();
    assert.equal(websites.known("example.com"), null, "the refreshed answer");
    assert.equal(websites.lastKnown("example.com"), null);
  });

  it("keeps a host's last answer while the metadata store fails, and asks again every 10 seconds", async () => {
    const { lookups, clock, failures, websites } = directory();
    void websites.lookUp("example.com");
    lookups.next().resolve(record(7, "example.com"));
    await settle();
    clock.advance(11_000);
    assert.equal(websites.known("example.com")?.id, 7);
    lookups.next().reject(down());
    await settle();
    assert.equal(failures.length, 1, "the failure is told");
    assert.ok(failures[0] instanceof StoreUnavailableError);
    assert.equal(websites.known("example.com")?.id, 7, "still answered");
    clock.advance(5_000);
    assert.equal(websites.known("example.com")?.id, 7);
    assert.equal(lookups.asked.length, 0, "not asked again within 10 seconds of the failure");
    clock.advance(6_000);
    assert.equal(websites.known("example.com")?.id, 7);
    assert.equal(lookups.asked.length, 1, "asked again after them");
    lookups.next().resolve(record(7, "example.com"));
    await settle();
    assert.equal(websites.known("example.com")?.id, 7);
  });

  it("answers a known host while its refresh waits on a store that does not answer", async () => {
    const { lookups, clock, websites } = directory();
    void websites.lookUp("example.com");
    lookups.next().resolve(record(7, "example.com"));
    await settle();
    clock.advance(60_000);
    for (let i = 0; i < 100; i += 1) assert.equal(websites.known("example.com")?.id, 7);
    assert.equal(lookups.asked.length, 1, "one refresh held, not one per hit");
  });

  it("fails a new host's hits while the metadata store cannot answer, and names no website", async () => {
    const { lookups, websites } = directory();
    const hit = websites.lookUp("new.example");
    lookups.next().reject(down());
    await assert.rejects(hit, StoreUnavailableError);
    assert.equal(websites.known("new.example"), undefined, "still never looked up");
    assert.equal(websites.lastKnown("new.example"), null);
    void websites.lookUp("new.example");
    assert.equal(lookups.asked.length, 1, "the next hit asks again");
  });

  it(`holds at most ${MAX_PENDING} lookups of new hosts at once`, async () => {
    const { lookups, websites } = directory();
    const held = Array.from({ length: MAX_PENDING }, (_, i) => websites.lookUp(`made-up-${i}.example`));
    await assert.rejects(websites.lookUp("one-more.example"), StoreUnavailableError);
    assert.equal(lookups.asked.length, MAX_PENDING, "the one more was not asked");
    for (const lookup of lookups.asked.splice(0)) lookup.reject(down());
    await Promise.allSettled(held);
    void websites.lookUp("one-more.example");
    assert.equal(lookups.asked.length, 1, "asked once the others ended");
  });

  it("forgets misses when 50,000, never the websites", async () => {
    const { lookups, websites } = directory();
    void websites.lookUp("example.com");
    lookups.next().resolve(record(7, "example.com"));
    await settle();
    for (let start = 0; start < 50_001; start += MAX_PENDING) {
      const batch: Promise<unknown>[] = [];
      for (let i = start; i < Math.min(start + MAX_PENDING, 50_001); i += 1)
        batch.push(websites.lookUp(`made-up-${i}.example`));
      for (const lookup of lookups.asked.splice(0)) lookup.resolve(null);
      await Promise.all(batch);
    }
    assert.equal(websites.known("made-up-50000.example"), null, "the newest miss");
    assert.equal(websites.known("made-up-0.example"), undefined, "the older misses forgotten");
    assert.equal(websites.known("example.com")?.id, 7, "the website kept");
  });

  it("drops an answer an invalidation made stale", async () => {
    const { lookups, websites } = directory();
    const hit = websites.lookUp("new.example");
    const before = lookups.next();
    websites.invalidate("new.example"); // the website was created here meanwhile
    before.resolve(null);
    assert.equal(await hit, null, "the hit that asked takes the answer it got");
    assert.equal(websites.known("new.example"), undefined, "not remembered: the next hit asks again");
    void websites.lookUp("new.example");
    lookups.next().resolve(record(8, "new.example"));
    await settle();
    assert.equal(websites.known("new.example")?.id, 8);
  });
});
