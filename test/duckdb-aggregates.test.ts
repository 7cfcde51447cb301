// The embedded store's incremental aggregates against the rebuild from raw events: random
// traffic in random batch sizes, across restarts (a day's memory is restored from storage)
// and compaction, must give exactly the answers the rebuild gives, for every statistic.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { STATS } from "../src/stats/catalog.js";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { LOCATIONS, pick, random } from "./support/seeded-random.js";
import { tempDir } from "./support/test-app.js";

function randomEvents(next: () => number, count: number, start: number): StoredEvent[] {
  return Array.from({ length: count }, () => {
    const isEvent = next() < 0.1;
    return {
      websiteId: pick(next, [1, 2]),
      ts: new Date(start + Math.floor(next() * 3 * 86_400) * 1000),
      visitor: BigInt(Math.floor(next() * 40)),
      kind: isEvent ? "event" : "pageview",
      isVisit: !isEvent && next() < 0.5,
      page: pick(next, ["/", "/a", "/b", "/c?x=1"]),
      referrer: pick(next, ["", "google.com", "t.co"]),
      campaign: pick(next, ["", "", "spring"]),
      browser: pick(next, ["Chrome", "Safari"]),
      os: pick(next, ["Windows", "iOS"]),
      device: pick(next, ["desktop", "mobile"]),
      // Language and resolution may change within a visitor's day; the rest rarely do.
      resolution: pick(next, ["1920x1080", "390x844"]),
      language: pick(next, ["en", "de", "fr"]),
      // Locations as geolocation gives them: city and continent agree with the country.
      ...pick(next, LOCATIONS),
      event: isEvent ? pick(next, ["Buy::", "Signup::"]) : "",
    };
  });
}

async function answers(store: DuckDbEventStore, websiteId: number) {
  const result: Record<string, unknown> = {};
  for (const stat of STATS) {
    result[stat.name] = await store.queryStat({
      websiteId,
      stat,
      from: "2026-01-01",
      to: "2026-12-31",
      search: null,
      sortBy: "count",
      sort: "desc",
      limit: 100,
      offset: 0,
    });
  }
  return result;
}

describe("embedded store aggregates", () => {
  for (const seed of [1, 2, 3]) {
    it(`match the rebuild from raw events across batches and restarts (seed ${seed})`, async () => {
      const dir = tempDir("analytics-aggregates-");
      const start = Date.UTC(2026, 5, 10);
      // "Now" is the last generated day, so two of the three days keep visitor ids.
      const clock = new ManualClock(new Date(start + 2.5 * 86_400_000));
      const next = random(seed);
      // Tiny merge thresholds: merges and moves into daily_stats happen between batches.
      const options = { clock, compactAfterRows: 40, keepRecentRows: 30 };
      let store = await DuckDbEventStore.open(dir, options);
      try {
        await store.migrate();
        let sent = 0;
        for (let round = 0; round < 6; round++) {
          const size = 1 + Math.floor(next() * 300);
          await store.insert(randomEvents(next, size, start));
          sent += size;
          if (round === 2 || round === 4) {
            await store.close(); // the next insert must restore each day's memory from storage
            store = await DuckDbEventStore.open(dir, options);
          }
        }
        assert.equal(await store.countEvents(), sent);
        const incremental = [await answers(store, 1), await answers(store, 2)];
        await store.rebuildAggregates();
        assert.deepEqual([await answers(store, 1), await answers(store, 2)], incremental);
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("keeps one visitor one visitor on a recent day across a restart, and forgets old days' ids", async () => {
    const dir = tempDir("analytics-aggregates-");
    const clock = new ManualClock("2026-06-10T12:00:00Z");
    const hit = (ts: string, visitor: bigint, page: string): StoredEvent => ({
      ...(randomEvents(random(9), 1, 0)[0] as StoredEvent),
      websiteId: 1,
      ts: new Date(ts),
      visitor,
      kind: "pageview",
      page,
    });
    let store = await DuckDbEventStore.open(dir, { clock });
    try {
      await store.migrate();
      await store.insert([hit("2026-06-10T08:00:00Z", 77n, "/a"), hit("2026-06-01T08:00:00Z", 77n, "/a")]);
      await store.close();
      store = await DuckDbEventStore.open(dir, { clock });
      // The same hash again: still one visitor today; on the old day its id was not kept (as
      // its salt is gone, a real hash could not repeat anyway), so it counts as a new one.
      await store.insert([hit("2026-06-10T09:00:00Z", 77n, "/b"), hit("2026-06-01T09:00:00Z", 77n, "/b")]);
      const visitors = await answers(store, 1);
      assert.deepEqual((visitors.visitors as { rows: unknown }).rows, [
        { value: "2026-06-01", count: 2 },
        { value: "2026-06-10", count: 1 },
      ]);
      const events = await store.listEvents(1);
      const today = events.filter((e) => e.ts.toISOString().startsWith("2026-06-10"));
      assert.equal(today[0]?.visitor, today[1]?.visitor, "the same visitor number after the restart");
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
