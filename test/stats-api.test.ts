// GET /api/v1/stats/{id} (CONTRACT.md section 4) over the hand-computed fixture: every
// statistic exactly, through the public endpoint and through the events API alike, and
// again after rebuilding the aggregates from raw events; then paging, sorting, ties,
// search and every validation error.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { STAT_ALIASES, STATS } from "../src/stats/catalog.js";
import { EVENT_STORES } from "./support/event-stores.js";
import {
  asImport,
  EXPECTED,
  FIXTURE_DOMAIN,
  FIXTURE_HITS,
  FIXTURE_RANGE,
  FIXTURE_SETTINGS,
} from "./support/stats-fixture.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

type Rows = [string, number][];

async function statRows(t: TestApp, key: string, id: number, query: string): Promise<Rows> {
  const response = await t.call(key, { url: `/api/v1/stats/${id}?${query}` });
  assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
  return response.json().data.map((row: { value: string; count: number }) => [row.value, row.count]);
}

const range = `from=${FIXTURE_RANGE.from}&to=${FIXTURE_RANGE.to}`;

async function allStats(t: TestApp, key: string, id: number): Promise<Record<string, Rows>> {
  const result: Record<string, Rows> = {};
  for (const stat of STATS)
    result[stat.name] = await statRows(t, key, id, `name=${stat.name}&${range}&per_page=100`);
  return result;
}

async function createFixtureWebsite(t: TestApp, key: string): Promise<number> {
  const created = await t.call(key, {
    method: "POST",
    url: "/api/v1/websites",
    form: { domain: FIXTURE_DOMAIN, ...FIXTURE_SETTINGS },
  });
  assert.equal(created.statusCode, 201);
  return created.json().data.id;
}

for (const store of EVENT_STORES) {
  describe(`statistics of the fixture (${store.name} event store)`, { skip: store.skip }, () => {
    let viaImport: TestApp;
    let viaTracker: TestApp;
    let importKey: string;
    let trackerKey: string;
    let importId: number;
    let trackerId: number;

    before(async () => {
      viaImport = await createTestApp({}, new ManualClock("2026-04-10T00:00:00Z"), { store });
      importKey = await viaImport.createUser();
      importId = await createFixtureWebsite(viaImport, importKey);
      const imported = await viaImport.call(importKey, {
        method: "POST",
        url: "/api/v1/events",
        json: { events: asImport(importId) },
      });
      assert.equal(imported.statusCode, 202);
      assert.equal(imported.json().accepted, FIXTURE_HITS.length - 2);

      // The same hits through the public endpoint, each at its own time from its own address.
      const clock = new ManualClock(FIXTURE_HITS[0]?.ts ?? "");
      viaTracker = await createTestApp({}, clock, { store });
      trackerKey = await viaTracker.createUser();
      trackerId = await createFixtureWebsite(viaTracker, trackerKey);
      for (const hit of FIXTURE_HITS) {
        clock.set(hit.ts);
        const response = await viaTracker.app.inject({
          method: "POST",
          url: "/api/event",
          remoteAddress: hit.ip,
          headers: {
            "user-agent": hit.userAgent,
            "accept-language": hit.language,
            "content-type": "text/plain",
          },
          payload: JSON.stringify({
            page: hit.page,
            referrer: hit.referrer,
            screen_resolution: hit.resolution,
            ...(hit.event ? { event: hit.event } : {}),
          }),
        });
        assert.equal(response.statusCode, 202);
        // Flush per hit: batches of one exercise the incremental unique-visitor counting hardest.
        await viaTracker.container.buffer.flush();
      }
    });
    after(async () => {
      await viaImport.close();
      await viaTracker.close();
    });

    it("answers every statistic exactly as computed by hand (events API)", async () => {
      assert.deepEqual(await allStats(viaImport, importKey, importId), EXPECTED);
    });

    it("gives the same numbers through the public endpoint", async () => {
      assert.deepEqual(await allStats(viaTracker, trackerKey, trackerId), EXPECTED);
    });

    it("gives identical answers after rebuilding the aggregates from raw events", async () => {
      await viaTracker.container.events.rebuildAggregates(trackerId);
      assert.deepEqual(await allStats(viaTracker, trackerKey, trackerId), EXPECTED);
      await viaImport.container.events.rebuildAggregates();
      assert.deepEqual(await allStats(viaImport, importKey, importId), EXPECTED);
    });

    it("accepts the _hour aliases", async () => {
      for (const [alias, name] of Object.entries(STAT_ALIASES)) {
        assert.deepEqual(
          await statRows(viaImport, importKey, importId, `name=${alias}&${range}`),
          await statRows(viaImport, importKey, importId, `name=${name}&${range}`),
        );
      }
    });

    it("counts only the days in the range, inclusive", async () => {
      const day2 = "from=2026-04-02&to=2026-04-02";
      assert.deepEqual(await statRows(viaImport, importKey, importId, `name=pageviews&${day2}`), [
        ["2026-04-02", 2],
      ]);
      assert.deepEqual(await statRows(viaImport, importKey, importId, `name=browser&${day2}`), [
        ["Chrome", 1],
        ["Firefox", 1],
      ]);
      assert.deepEqual(
        await statRows(viaImport, importKey, importId, "name=page&from=2026-05-01&to=2026-05-31"),
        [],
      );
    });

    it("sorts by count or value either way, ties by value ascending", async () => {
      const q = (sort: string) => statRows(viaImport, importKey, importId, `name=browser&${range}&${sort}`);
      assert.deepEqual(await q("sort=asc"), [
        ["Firefox", 1],
        ["Chrome", 2],
        ["Safari", 2],
      ]);
      assert.deepEqual(await q("sort_by=value&sort=asc"), [
        ["Chrome", 2],
        ["Firefox", 1],
        ["Safari", 2],
      ]);
      assert.deepEqual(await q("sort_by=value&sort=desc"), [
        ["Safari", 2],
        ["Firefox", 1],
        ["Chrome", 2],
      ]);
      assert.deepEqual(
        await statRows(viaImport, importKey, importId, `name=pageviews&${range}&sort_by=value&sort=asc`),
        [
          ["2026-04-01", 4],
          ["2026-04-02", 2],
          ["2026-04-03", 1],
        ],
      );
    });

    it("searches values case-insensitively and literally, by value or url", async () => {
      const q = (query: string) => statRows(viaImport, importKey, importId, `${range}&${query}`);
      assert.deepEqual(await q("name=referrer&search=GOOGLE"), [["google.com", 2]]);
      assert.deepEqual(await q("name=referrer&search=google&search_by=url"), [["google.com", 2]]);
      assert.deepEqual(await q("name=referrer&search=google&search_by=value"), [["google.com", 2]]);
      assert.deepEqual(await q("name=page&search=_"), [["/?utm_campaign=spring", 2]], "_ is literal");
      assert.deepEqual(await q(`name=page&search=${encodeURIComponent("%")}`), [], "% is literal");
      assert.deepEqual(await q("name=pageviews&search=04-02"), [["2026-04-02", 2]]);
    });

    it("pages with the flat paginator shape and integer counts", async () => {
      const response = await viaImport.call(importKey, {
        url: `/api/v1/stats/${importId}?name=os&${range}&per_page=10&page=1`,
      });
      const body = response.json();
      const base = `http://localhost:80/api/v1/stats/${importId}`;
      assert.deepEqual(Object.keys(body), [
        "current_page",
        "data",
        "first_page_url",
        "from",
        "last_page",
        "last_page_url",
        "next_page_url",
        "path",
        "per_page",
        "prev_page_url",
        "to",
        "total",
        "status",
      ]);
      assert.equal(body.first_page_url, `${base}?name=os&${range}&per_page=10&page=1`);
      assert.equal(body.last_page_url, body.first_page_url);
      assert.equal(body.path, base);
      assert.deepEqual([body.from, body.to, body.total, body.last_page], [1, 3, 3, 1]);
      assert.deepEqual([body.next_page_url, body.prev_page_url], [null, null]);
      assert.ok(body.data.every((row: { count: unknown }) => Number.isInteger(row.count)));
      assert.match(response.body, /"count":2[,}]/, "counts are JSON integers, not strings");
      const past = (
        await viaImport.call(importKey, { url: `/api/v1/stats/${importId}?name=os&${range}&page=3` })
      ).json();
      assert.deepEqual(
        [past.data, past.from, past.to, past.total, past.current_page],
        [[], null, null, 3, 3],
      );
      assert.equal(past.prev_page_url, `${base}?name=os&${range}&page=2`);
    });
  });

  describe(`statistics paging over many values (${store.name} event store)`, { skip: store.skip }, () => {
    it("walks every page in a stable order", async () => {
      const t = await createTestApp({}, new ManualClock("2026-04-10T00:00:00Z"), { store });
      try {
        const key = await t.createUser();
        const id = await createFixtureWebsite(t, key);
        // 25 pages, viewed 1..5 times each, so counts tie in groups of five.
        const events = [];
        for (let page = 0; page < 25; page++) {
          for (let view = 0; view <= page % 5; view++) {
            events.push({
              website_id: id,
              ts: "2026-04-01T12:00:00Z",
              page: `https://${FIXTURE_DOMAIN}/p/${page}`,
              user_agent: FIXTURE_HITS[0]?.userAgent,
            });
          }
        }
        const imported = await t.call(key, { method: "POST", url: "/api/v1/events", json: { events } });
        assert.equal(imported.json().accepted, events.length);
        const seen: Rows = [];
        let url: string | null = `/api/v1/stats/${id}?name=page&${range}`;
        for (let pages = 0; url && pages < 5; pages++) {
          const body: { data: { value: string; count: number }[]; next_page_url: string | null } = (
            await t.call(key, { url })
          ).json();
          seen.push(...body.data.map((row) => [row.value, row.count] as [string, number]));
          url = body.next_page_url
            ? new URL(body.next_page_url).pathname + new URL(body.next_page_url).search
            : null;
        }
        assert.equal(seen.length, 25);
        const expected = [...Array(25).keys()]
          .map((page) => [`/p/${page}`, (page % 5) + 1] as [string, number])
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        assert.deepEqual(seen, expected);
      } finally {
        await t.close();
      }
    });
  });
}

describe("statistics errors", () => {
  let t: TestApp;
  let key: string;
  let id: number;
  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
    id = await createFixtureWebsite(t, key);
  });
  after(() => t.close());

  const status = async (url: string, apiKey: string | null = key) => {
    const response = await t.call(apiKey, { url });
    return { code: response.statusCode, body: response.json() };
  };

  it("requires name, from and to", async () => {
    const { code, body } = await status(`/api/v1/stats/${id}`);
    assert.equal(code, 422);
    assert.deepEqual(body.message, {
      name: ["The name field is required."],
      from: ["The from field is required."],
      to: ["The to field is required."],
    });
  });

  it("names every invalid parameter and what is allowed", async () => {
    const { code, body } = await status(
      `/api/v1/stats/${id}?name=bounce_rate&from=2026-02-30&to=2026-13-01&search_by=domain&sort_by=visits&sort=up&per_page=20&page=0`,
    );
    assert.equal(code, 422);
    assert.deepEqual(Object.keys(body.message).sort(), [
      "from",
      "name",
      "page",
      "per_page",
      "search_by",
      "sort",
      "sort_by",
      "to",
    ]);
    assert.match(
      body.message.name[0],
      /^The name must be one of: browser, campaign, city, continent, country, device/,
    );
    assert.deepEqual(body.message.from, ["The from must be a real date in the format YYYY-MM-DD."]);
    assert.deepEqual(body.message.per_page, ["The per page must be one of: 10, 25, 50, 100."]);
    assert.deepEqual(body.message.search_by, ["The search by must be one of: value, url."]);
    for (const bad of ["2026-4-01", "01-04-2026", "2026-04-01T00:00:00Z", "2025-02-29", "tomorrow"]) {
      const response = await status(`/api/v1/stats/${id}?name=page&from=${bad}&to=2026-04-30`);
      assert.equal(response.code, 422, bad);
    }
    assert.equal((await status(`/api/v1/stats/${id}?name=page&from=2024-02-29&to=2024-02-29`)).code, 200);
  });

  it("refuses a range that ends before it starts", async () => {
    const { code, body } = await status(`/api/v1/stats/${id}?name=page&from=2026-04-02&to=2026-04-01`);
    assert.equal(code, 422);
    assert.deepEqual(body.message, { to: ["The to must be a date after or equal to from."] });
  });

  it("answers 404 for another user's website, a missing one or a bad id, and 401 without a key", async () => {
    const other = await t.createUser();
    const query = `name=page&${range}`;
    for (const [url, apiKey] of [
      [`/api/v1/stats/${id}?${query}`, other],
      [`/api/v1/stats/999999?${query}`, key],
      [`/api/v1/stats/abc?${query}`, key],
      [`/api/v1/stats/1e3?${query}`, key],
    ] as const) {
      const response = await status(url, apiKey);
      assert.equal(response.code, 404, url);
      assert.deepEqual(response.body, { message: "Resource not found.", status: 404 });
    }
    assert.equal((await status(`/api/v1/stats/${id}?${query}`, null)).code, 401);
  });
});
