// The statistics service asks the event store only about days that can hold events: a range
// reaching past tomorrow (the server's clock, in the website's zone) is read to tomorrow,
// and one wholly after it is answered empty without the store. A range to 9000-12-31 in a
// zone with daylight saving once took 42 s to find its offset changes.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import type { DaysQuery, StatsQuery } from "../src/stats/stats-query.js";
import { StatsService } from "../src/stats/stats-service.js";
import type { EventStore, WebsiteRecord, WebsiteRepository } from "../src/storage/ports.js";

const WEBSITE = { id: 1, userId: 7, timezone: "America/New_York" } as WebsiteRecord;

/** A service over a store that records what it is asked. */
function service(now: string) {
  const asked: { stat: StatsQuery[]; days: DaysQuery[] } = { stat: [], days: [] };
  const websites = { find: async () => WEBSITE } as unknown as WebsiteRepository;
  const events = {
    queryStat: async (query: StatsQuery) => {
      asked.stat.push(query);
      return { rows: [{ value: "/", count: 1 }], total: 1 };
    },
    queryDays: async (query: DaysQuery) => {
      asked.days.push(query);
      return { pageviews: { [query.from]: 1 } };
    },
  } as unknown as EventStore;
  return { asked, stats: new StatsService(websites, events, new ManualClock(now)) };
}

const request = (from: string, to: string) =>
  ({ name: "page", from, to, sortBy: "count", sort: "desc", perPage: 10, page: 1 }) as const;

describe("the days a statistic asks the store about", () => {
  it("reads a range reaching into the future to tomorrow in the website's zone", async () => {
    // 03:00 UTC on the 27th is still the 26th in New York: tomorrow there is the 27th.
    const { asked, stats } = service("2026-11-27T03:00:00Z");
    await stats.read(7, 1, request("2026-11-01", "9000-12-31"));
    assert.deepEqual(
      asked.stat.map((query) => [query.from, query.to]),
      [["2026-11-01", "2026-11-27"]],
    );
    const website = await stats.forWebsite(7, 1);
    await website.readDays(["pageviews"], "2026-11-20", "9000-12-31");
    assert.deepEqual(
      asked.days.map((query) => [query.from, query.to, query.stats.map((stat) => stat.name)]),
      [["2026-11-20", "2026-11-27", ["pageviews"]]],
    );
  });

  it("leaves a range that ends by tomorrow as it is", async () => {
    const { asked, stats } = service("2026-11-27T12:00:00Z");
    await stats.read(7, 1, request("2026-11-01", "2026-11-28"));
    assert.deepEqual(
      asked.stat.map((query) => [query.from, query.to]),
      [["2026-11-01", "2026-11-28"]],
    );
  });

  it("answers a range wholly after tomorrow with nothing, without asking", async () => {
    const { asked, stats } = service("2026-11-27T12:00:00Z");
    assert.deepEqual(await stats.read(7, 1, request("2026-11-29", "9000-12-31")), { rows: [], total: 0 });
    const website = await stats.forWebsite(7, 1);
    assert.deepEqual(await website.readDays(["pageviews", "visitors"], "2026-11-29", "2026-12-31"), {
      pageviews: {},
      visitors: {},
    });
    assert.equal(asked.stat.length + asked.days.length, 0);
  });
});
