// GET /api/v1/stats/{id} (CONTRACT.md section 4) over the hand-computed fixture: the hits
// stored as the events the store contract counts, every statistic exactly through the
// public endpoint and through the events API alike, the query's parameters reaching the
// store, the paginator's shape, and every validation error. What each event store answers
// (every engine, rebuilt, sorted, searched, paged) is event-store-contract.test.ts's.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { RATIOS, STAT_ALIASES, STATS } from "../src/stats/catalog.js";
import {
  asImport,
  EXPECTED,
  EXPECTED_RATIOS,
  FILTERED,
  FIXTURE_DOMAIN,
  FIXTURE_HITS,
  FIXTURE_RANGE,
  FIXTURE_SETTINGS,
  fixtureEvents,
} from "./support/stats-fixture.js";
import { storedEvents, visitorPattern, withoutVisitor } from "./support/stored-events.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

type Rows = [string, number][];

const UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

async function statRows(t: TestApp, key: string, id: number, query: string): Promise<Rows> {
  const response = await t.call(key, { url: `/api/v1/stats/${id}?${query}` });
  assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
  return response.json().data.map((row: { value: string; count: number }) => [row.value, row.count]);
}

const range = `from=${FIXTURE_RANGE.from}&to=${FIXTURE_RANGE.to}`;

async function allStats(t: TestApp, key: string, id: number): Promise<Record<string, Rows>> {
  const result: Record<string, Rows> = {};
  for (const { name } of [...STATS, ...RATIOS])
    result[name] = await statRows(t, key, id, `name=${name}&${range}&per_page=100`);
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

describe("statistics of the fixture through the API", () => {
  let viaImport: TestApp;
  let viaTracker: TestApp;
  let importKey: string;
  let trackerKey: string;
  let importId: number;
  let trackerId: number;

  before(async () => {
    viaImport = await createTestApp({}, new ManualClock("2026-04-10T00:00:00Z"));
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
    viaTracker = await createTestApp({}, clock);
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
          ...(hit.engagement ? { engagement: true } : {}),
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

  it("stores the hits as the events the store contract counts (fixtureEvents)", async () => {
    for (const [t, id] of [
      [viaImport, importId],
      [viaTracker, trackerId],
    ] as const) {
      const stored = await storedEvents(t.container.events, id);
      assert.deepEqual(stored.map(withoutVisitor), fixtureEvents(id).map(withoutVisitor));
      assert.deepEqual(visitorPattern(stored), visitorPattern(fixtureEvents(id)), "one visitor each a day");
    }
  });

  it("answers every statistic exactly as computed by hand (events API)", async () => {
    assert.deepEqual(await allStats(viaImport, importKey, importId), { ...EXPECTED, ...EXPECTED_RATIOS });
  });

  it("gives the same numbers through the public endpoint", async () => {
    assert.deepEqual(await allStats(viaTracker, trackerKey, trackerId), { ...EXPECTED, ...EXPECTED_RATIOS });
  });

  it("sorts, searches and pages a ratio as any statistic", async () => {
    const rows = (query: string) =>
      statRows(viaImport, importKey, importId, `name=bounce_rate&${range}&${query}`);
    assert.deepEqual(await rows("sort_by=value&sort=desc"), [
      ["2026-04-03", 0],
      ["2026-04-02", 50],
      ["2026-04-01", 33.3],
    ]);
    assert.deepEqual(await rows("sort=asc&per_page=10"), [
      ["2026-04-03", 0],
      ["2026-04-01", 33.3],
      ["2026-04-02", 50],
    ]);
    assert.deepEqual(await rows("search=04-02"), [["2026-04-02", 50]]);
    const filtered = await rows(`filters=${encodeURIComponent("browser==Safari")}`);
    // B's visits: 2 on day 1 (one a bounce), 1 on day 3.
    assert.deepEqual(filtered, [
      ["2026-04-01", 50],
      ["2026-04-03", 0],
    ]);
  });

  it("accepts the _hour aliases", async () => {
    for (const [alias, name] of Object.entries(STAT_ALIASES)) {
      assert.deepEqual(
        await statRows(viaImport, importKey, importId, `name=${alias}&${range}`),
        await statRows(viaImport, importKey, importId, `name=${name}&${range}`),
      );
    }
  });

  it("passes the range, sort and a lowercased search to the store, by value or url", async () => {
    const q = (query: string) => statRows(viaImport, importKey, importId, query);
    assert.deepEqual(await q("name=browser&from=2026-04-02&to=2026-04-02"), [
      ["Chrome", 1],
      ["Firefox", 1],
    ]);
    assert.deepEqual(await q(`name=browser&${range}&sort_by=value&sort=desc`), [
      ["Safari", 2],
      ["Firefox", 1],
      ["Chrome", 2],
    ]);
    assert.deepEqual(await q(`name=browser&${range}&sort=asc`), [
      ["Firefox", 1],
      ["Chrome", 2],
      ["Safari", 2],
    ]);
    assert.deepEqual(await q(`name=referrer&${range}&search=GOOGLE`), [["google.com", 2]]);
    assert.deepEqual(await q(`name=referrer&${range}&search=google&search_by=url`), [["google.com", 2]]);
    assert.deepEqual(await q(`name=referrer&${range}&search=google&search_by=value`), [["google.com", 2]]);
  });

  it("counts only the events the filters select, on either road in", async () => {
    for (const [t, key, id] of [
      [viaImport, importKey, importId],
      [viaTracker, trackerKey, trackerId],
    ] as const) {
      for (const { stat, filters, rows } of FILTERED) {
        const query = `name=${stat}&${range}&per_page=100&filters=${encodeURIComponent(filters)}`;
        assert.deepEqual(await statRows(t, key, id, query), rows, `${stat} filtered by ${filters}`);
      }
    }
    // The page links keep the filters.
    const response = await viaImport.call(importKey, {
      url: `/api/v1/stats/${importId}?name=page&${range}&filters=${encodeURIComponent("referrer==;page~/")}`,
    });
    assert.equal(
      response.json().first_page_url,
      `http://localhost:80/api/v1/stats/${importId}?name=page&${range}&filters=referrer%3D%3D%3Bpage%7E%2F&page=1`,
    );
  });

  it("gives pageviews and visitors per hour, day, week or month, every period in order", async () => {
    const series = async (query: string) => {
      const response = await viaImport.call(importKey, {
        url: `/api/v1/stats/${importId}/timeseries?${query}`,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const point = (
      period: string,
      from: string,
      to: string,
      pageviews: number,
      visitors: number,
      visits: number,
    ) => ({ period, from, to, pageviews, visitors, visits });
    const days = await series("from=2026-03-31&to=2026-04-04");
    assert.equal(days.interval, "day");
    assert.deepEqual(days.data, [
      point("2026-03-31", "2026-03-31", "2026-03-31", 0, 0, 0),
      point("2026-04-01", "2026-04-01", "2026-04-01", 4, 2, 3),
      point("2026-04-02", "2026-04-02", "2026-04-02", 2, 2, 2),
      point("2026-04-03", "2026-04-03", "2026-04-03", 1, 1, 1),
      point("2026-04-04", "2026-04-04", "2026-04-04", 0, 0, 0),
    ]);
    // Weeks run Monday to Sunday, cut by the range at either end; visitors add up their days.
    assert.deepEqual((await series("from=2026-03-28&to=2026-04-07&interval=week")).data, [
      point("2026-03-28/2026-03-29", "2026-03-28", "2026-03-29", 0, 0, 0),
      point("2026-03-30/2026-04-05", "2026-03-30", "2026-04-05", 7, 5, 6),
      point("2026-04-06/2026-04-07", "2026-04-06", "2026-04-07", 0, 0, 0),
    ]);
    assert.deepEqual((await series("from=2026-03-15&to=2026-04-10&interval=month")).data, [
      point("2026-03-15/2026-03-31", "2026-03-15", "2026-03-31", 0, 0, 0),
      point("2026-04-01/2026-04-10", "2026-04-01", "2026-04-10", 7, 5, 6),
    ]);
    const hours = (await series("from=2026-04-01&to=2026-04-02&interval=hour")).data;
    assert.equal(hours.length, 48);
    assert.deepEqual(hours[0], point("2026-04-01T00", "2026-04-01", "2026-04-01", 0, 0, 0));
    // A's and B's first visits began at 09, B's second at 10.
    assert.deepEqual(hours[9], point("2026-04-01T09", "2026-04-01", "2026-04-01", 3, 2, 2));
    assert.deepEqual(hours[10], point("2026-04-01T10", "2026-04-01", "2026-04-01", 1, 1, 1));
    assert.deepEqual(hours[24 + 9], point("2026-04-02T09", "2026-04-02", "2026-04-02", 1, 1, 1));
    assert.deepEqual(hours[24 + 14], point("2026-04-02T14", "2026-04-02", "2026-04-02", 1, 1, 1));
    const total = hours.reduce((sum: number, entry: { pageviews: number }) => sum + entry.pageviews, 0);
    assert.equal(total, 6);
    // Filtered as any statistic: the pageviews of /pricing, their visitors, the visits with one.
    assert.deepEqual((await series(`${range}&filters=${encodeURIComponent("page==/pricing")}`)).data, [
      point("2026-04-01", "2026-04-01", "2026-04-01", 2, 2, 2),
      point("2026-04-02", "2026-04-02", "2026-04-02", 1, 1, 1),
      point("2026-04-03", "2026-04-03", "2026-04-03", 0, 0, 0),
    ]);
  });

  it("gives a range's totals and their change from the range compared with", async () => {
    const totals = async (query: string) => {
      const response = await viaImport.call(importKey, { url: `/api/v1/stats/${importId}/totals?${query}` });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 200);
      return response.json().data;
    };
    const none = {
      visitors: 0,
      visits: 0,
      pageviews: 0,
      events: 0,
      views_per_visit: null,
      bounce_rate: null,
      visit_duration: null,
    };
    // 6 visits: 7 pageviews, 2 bounces, 2460 + 1865 + 40 seconds.
    const all = {
      visitors: 5,
      visits: 6,
      pageviews: 7,
      events: 3,
      views_per_visit: 1.17,
      bounce_rate: 33.3,
      visit_duration: 728,
    };
    assert.deepEqual(await totals(range), {
      from: "2026-04-01",
      to: "2026-04-03",
      totals: all,
      comparison: {
        from: "2026-03-29",
        to: "2026-03-31",
        totals: none,
        change: {
          visitors: null,
          visits: null,
          pageviews: null,
          events: null,
          views_per_visit: null,
          bounce_rate: null,
          visit_duration: null,
        },
      },
    });
    assert.deepEqual(
      await totals(
        "from=2026-04-02&to=2026-04-03&compare=range&compare_from=2026-04-01&compare_to=2026-04-01",
      ),
      {
        from: "2026-04-02",
        to: "2026-04-03",
        totals: {
          visitors: 3,
          visits: 3,
          pageviews: 3,
          events: 2,
          views_per_visit: 1,
          bounce_rate: 33.3,
          visit_duration: 635,
        },
        comparison: {
          from: "2026-04-01",
          to: "2026-04-01",
          totals: {
            visitors: 2,
            visits: 3,
            pageviews: 4,
            events: 1,
            views_per_visit: 1.33,
            bounce_rate: 33.3,
            visit_duration: 820,
          },
          // Changes are of the numbers as shown (1 against 1.33 pageviews a visit).
          change: {
            visitors: 50,
            visits: 0,
            pageviews: -25,
            events: 100,
            views_per_visit: -24.8,
            bounce_rate: 0,
            visit_duration: -22.6,
          },
        },
      },
    );
    const year = await totals(`${range}&compare=year`);
    assert.deepEqual(
      [year.comparison.from, year.comparison.to, year.comparison.totals],
      ["2025-04-01", "2025-04-03", none],
    );
    const leap = await totals("from=2028-02-29&to=2028-03-01&compare=year");
    assert.deepEqual([leap.comparison.from, leap.comparison.to], ["2027-02-28", "2027-03-01"]);
    assert.equal((await totals(`${range}&compare=none`)).comparison, null);
    // Filtered: /pricing's pageviews, their visitors, the Signup sent from it, and the visits
    // with one (A's two, with 2 and 1 pageviews, 2400 and 5 seconds; B's second, 60 seconds).
    const filtered = await totals(`${range}&compare=none&filters=${encodeURIComponent("page==/pricing")}`);
    assert.deepEqual(filtered.totals, {
      visitors: 3,
      visits: 3,
      pageviews: 3,
      events: 1,
      views_per_visit: 1.33,
      bounce_rate: 33.3,
      visit_duration: 822,
    });
  });

  it("gives every row as CSV with format=csv, quoted, and formulas written as text", async () => {
    const csv = async (t: TestApp, key: string, url: string) => {
      const response = await t.call(key, { url });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers["content-type"], "text/csv; charset=utf-8");
      return { body: response.body, disposition: response.headers["content-disposition"] };
    };
    const page = await csv(
      viaImport,
      importKey,
      `/api/v1/stats/${importId}?name=page&${range}&format=csv&per_page=10&page=2`,
    );
    assert.equal(page.body, "value,count\r\n/pricing,3\r\n/?utm_campaign=spring,2\r\n/blog/post?id=3,2\r\n");
    assert.equal(
      page.disposition,
      `attachment; filename="stats-${importId}-page-${FIXTURE_RANGE.from}-${FIXTURE_RANGE.to}.csv"`,
    );
    const filtered = await csv(
      viaImport,
      importKey,
      `/api/v1/stats/${importId}?name=browser&${range}&format=csv&filters=${encodeURIComponent("page==/pricing")}`,
    );
    assert.equal(filtered.body, "value,count\r\nChrome,2\r\nSafari,1\r\n");

    // Anyone can name an event: commas, quotes and a formula stay text in a spreadsheet.
    const other = await viaImport.call(importKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "csv.example" },
    });
    const otherId = other.json().data.id;
    const sent = await viaImport.call(importKey, {
      method: "POST",
      url: "/api/v1/events",
      json: {
        events: ['=SUM(1,2) "x"', "-1", "plain"].map((name) => ({
          website_id: otherId,
          ts: "2026-04-02T10:00:00Z",
          page: "https://csv.example/",
          ip: "81.2.69.142",
          user_agent: FIXTURE_HITS[0]?.userAgent,
          event: { name },
        })),
      },
    });
    assert.equal(sent.statusCode, 202, sent.body);
    const events = await csv(
      viaImport,
      importKey,
      `/api/v1/stats/${otherId}?name=event&${range}&format=csv&sort_by=value&sort=asc`,
    );
    assert.equal(events.body, 'value,count\r\n\'-1::,1\r\n"\'=SUM(1,2) ""x""::",1\r\nplain::,1\r\n');
  });

  it("counts the days and hours of the website's time zone, and all of them again when it changes", async () => {
    const t = await createTestApp({}, new ManualClock("2026-04-10T00:00:00Z"));
    try {
      const key = await t.createUser();
      const created = await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "berlin.example", timezone: "Europe/Berlin" },
      });
      const id = created.json().data.id;
      // Around Berlin's change to summer time at 01:00 UTC on 29 March 2026.
      const at = (ts: string, ip: string) => ({
        website_id: id,
        ts,
        page: "https://berlin.example/",
        ip,
        user_agent: UA,
      });
      const imported = await t.call(key, {
        method: "POST",
        url: "/api/v1/events",
        json: {
          events: [
            at("2026-03-28T22:30:00Z", "81.2.69.1"),
            at("2026-03-28T23:30:00Z", "81.2.69.2"),
            at("2026-03-29T00:30:00Z", "81.2.69.2"),
            at("2026-03-29T01:30:00Z", "81.2.69.2"),
          ],
        },
      });
      assert.equal(imported.statusCode, 202, imported.body);
      const days = "from=2026-03-28&to=2026-03-29&sort_by=value&sort=asc";
      // One person's three pageviews from 00:30 to 03:30 Berlin time: one visitor that day.
      assert.deepEqual(await statRows(t, key, id, `name=pageviews&${days}`), [
        ["2026-03-28", 1],
        ["2026-03-29", 3],
      ]);
      assert.deepEqual(await statRows(t, key, id, `name=visitors&${days}`), [
        ["2026-03-28", 1],
        ["2026-03-29", 1],
      ]);
      assert.deepEqual(await statRows(t, key, id, `name=pageviews_hours&${days}`), [
        ["00", 1],
        ["01", 1],
        ["03", 1],
        ["23", 1],
      ]);
      const hourly = await t.call(key, {
        url: `/api/v1/stats/${id}/timeseries?from=2026-03-29&to=2026-03-29&interval=hour`,
      });
      const periods = hourly.json().data.map((point: { period: string }) => point.period);
      assert.equal(periods.length, 23, "a day of 23 hours");
      assert.ok(!periods.includes("2026-03-29T02"), "02:00 never came");
      // In UTC the same events fall on other days.
      await t.call(key, { method: "PUT", url: `/api/v1/websites/${id}`, form: { timezone: "UTC" } });
      assert.deepEqual(await statRows(t, key, id, `name=pageviews&${days}`), [
        ["2026-03-28", 2],
        ["2026-03-29", 2],
      ]);
    } finally {
      await t.close();
    }
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
    assert.deepEqual([past.data, past.from, past.to, past.total, past.current_page], [[], null, null, 3, 3]);
    assert.equal(past.prev_page_url, `${base}?name=os&${range}&page=2`);
  });
});

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
      `/api/v1/stats/${id}?name=bounce&from=2026-02-30&to=2026-13-01&search_by=domain&sort_by=visits&sort=up&per_page=20&page=0`,
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
      /^The name must be one of: bounce_rate, bounces, browser, campaign, city, continent, country, device/,
    );
    assert.deepEqual(body.message.from, ["The from must be a real date in the format YYYY-MM-DD."]);
    assert.deepEqual(body.message.per_page, ["The per page must be one of: 10, 25, 50, 100."]);
    assert.deepEqual(body.message.search_by, ["The search by must be one of: value, url."]);
    for (const bad of ["2026-4-01", "01-04-2026", "2026-04-01T00:00:00Z", "2025-02-29", "tomorrow"]) {
      const response = await status(`/api/v1/stats/${id}?name=page&from=${bad}&to=2026-04-30`);
      assert.equal(response.code, 422, bad);
    }
    assert.equal((await status(`/api/v1/stats/${id}?name=page&from=2024-02-29&to=2024-02-29`)).code, 200);
    // Real dates outside 1970-01-01..9000-12-31 (the stores count days from 1970, and a
    // period before a range must stay within four-digit years): a 422, never a 500.
    const outside = "must be a date from 1970-01-01 to 9000-12-31.";
    for (const [from, to, field] of [
      ["2026-11-27", "9999-12-31", "to"],
      ["1000-01-01", "2026-01-02", "from"],
      ["0001-01-01", "2026-01-02", "from"],
      ["1969-12-31", "2026-01-02", "from"],
    ] as const) {
      for (const path of [`?name=page&`, "/totals?", "/timeseries?interval=month&"]) {
        const response = await status(`/api/v1/stats/${id}${path}from=${from}&to=${to}`);
        assert.equal(response.code, 422, `${path} ${from}..${to}`);
        assert.deepEqual(response.body.message[field], [`The ${field} ${outside}`], `${path} ${from}..${to}`);
      }
    }
    assert.equal(
      (await status(`/api/v1/stats/${id}/totals?from=1970-01-01&to=9000-12-31&compare=none`)).code,
      200,
    );
    // A compared range that would start before 1970 is refused, not given with a date like -000027-12.
    for (const compare of ["previous", "year"]) {
      const response = await status(
        `/api/v1/stats/${id}/totals?from=1970-01-01&to=2026-01-02&compare=${compare}`,
      );
      assert.equal(response.code, 422, compare);
      assert.deepEqual(response.body.message, {
        compare: ["The compared range would start before 1970-01-01, where no statistics are."],
      });
    }
  });

  it("names a filter it cannot read, and what is allowed", async () => {
    const cases: [string, string][] = [
      ["bogus==1", 'The filter "bogus==1" must begin with one of page, landing_page, referrer'],
      ["page=/a", 'The filter "page=/a" must have ==, !=, ~ or !~ after page.'],
      ["page~", 'The filter "page~" must say what the page contains.'],
      ["page==/a\\x", 'The filter "page==/a\\\\x" has a \\ not followed by ; or \\'],
      [";", "The filters must hold at least one condition."],
    ];
    for (const [filters, message] of cases) {
      const { code, body } = await status(
        `/api/v1/stats/${id}?name=page&${range}&filters=${encodeURIComponent(filters)}`,
      );
      assert.equal(code, 422, filters);
      assert.deepEqual(Object.keys(body.message), ["filters"], filters);
      assert.ok(body.message.filters[0].startsWith(message), `${filters}: ${body.message.filters[0]}`);
    }
    const long = await status(`/api/v1/stats/${id}?name=page&${range}&filters=page==${"x".repeat(8200)}`);
    assert.equal(long.code, 422);
    assert.deepEqual(Object.keys(long.body.message), ["filters"]);
  });

  it("names what is wrong with a time series request", async () => {
    const series = (query: string) => status(`/api/v1/stats/${id}/timeseries?${query}`);
    const hourly = await series("from=2026-04-01&to=2026-04-08&interval=hour");
    assert.equal(hourly.code, 422);
    assert.deepEqual(hourly.body.message, {
      interval: ["The interval hour is for ranges of at most 7 days; this one has 8."],
    });
    // Every interval lists a bounded number of periods: the whole span of allowed dates by
    // the day took a minute and 257 MB while the server answered nothing else.
    for (const [interval, days] of [
      ["day", 3660],
      ["week", 36525],
      ["month", 36525],
    ] as const) {
      const to = new Date(Date.parse("1970-01-01") + days * 86_400_000).toISOString().slice(0, 10);
      const wide = await series(`from=1970-01-01&to=${to}&interval=${interval}`);
      assert.equal(wide.code, 422, interval);
      assert.deepEqual(wide.body.message, {
        interval: [
          `The interval ${interval} is for ranges of at most ${days} days; this one has ${days + 1}.`,
        ],
      });
    }
    const decade = await series("from=2020-01-01&to=2030-01-07&interval=day");
    assert.equal(decade.code, 200);
    assert.equal(decade.body.data.length, 3660);
    const dropped = await status(`/api/v1/stats/${id}/dropped?from=1970-01-01&to=9000-12-31`);
    assert.equal(dropped.code, 422);
    assert.match(
      dropped.body.message.to[0],
      /^The dropped hits are listed for ranges of at most 3660 days; this one has \d+\.$/,
    );
    const bad = await series("from=2026-04-31&interval=year");
    assert.equal(bad.code, 422);
    assert.deepEqual(Object.keys(bad.body.message).sort(), ["from", "interval", "to"]);
    const backwards = await series("from=2026-04-02&to=2026-04-01");
    assert.deepEqual(backwards.body.message, { to: ["The to must be a date after or equal to from."] });
    const filtered = await series(`${range}&filters=nope==1`);
    assert.equal(filtered.code, 422);
    assert.deepEqual(Object.keys(filtered.body.message), ["filters"]);
    const other = await t.createUser();
    assert.equal((await status(`/api/v1/stats/${id}/timeseries?${range}`, other)).code, 404);
  });

  it("names what is wrong with a totals request", async () => {
    const totals = (query: string) => status(`/api/v1/stats/${id}/totals?${query}`);
    const custom = await totals(`${range}&compare=range`);
    assert.equal(custom.code, 422);
    assert.deepEqual(custom.body.message, {
      compare_from: ["The compare from field is required when compare is range."],
      compare_to: ["The compare to field is required when compare is range."],
    });
    const backwards = await totals(`${range}&compare=range&compare_from=2026-03-02&compare_to=2026-03-01`);
    assert.deepEqual(backwards.body.message, {
      compare_to: ["The compare to must be a date after or equal to compare from."],
    });
    const bad = await totals("from=2026-04-01&to=2026-04-31&compare=week&compare_from=yesterday");
    assert.equal(bad.code, 422);
    assert.deepEqual(Object.keys(bad.body.message).sort(), ["compare", "compare_from", "to"]);
    const other = await t.createUser();
    assert.equal((await status(`/api/v1/stats/${id}/totals?${range}`, other)).code, 404);
  });

  it("names every invalid field at once, the schema's findings and the other checks together", async () => {
    const cases: [string, Record<string, RegExp>][] = [
      // A schema problem beside a filter it cannot read.
      [
        "?name=x&from=2026-13-01&to=2026-11-10&per_page=7&filters=zz",
        { filters: /filter/i, from: /real date/, name: /must be one of/, per_page: /must be one of/ },
      ],
      // Two checks beyond the schema: a reversed range and a filter.
      [
        "?name=page&from=2026-11-10&to=2026-11-01&filters=page",
        { filters: /filter/i, to: /after or equal to from/ },
      ],
      [
        "/totals?from=2026-11-10&to=2026-11-01&compare=range&compare_from=2026-11-05&compare_to=2026-11-01",
        { compare_to: /after or equal to compare from/, to: /after or equal to from/ },
      ],
      [
        "/timeseries?from=2026-11-01&to=2026-11-30&interval=hour&filters=page",
        { filters: /filter/i, interval: /at most/ },
      ],
      [
        "/timeseries?from=2026-11-01&to=2026-11-30&interval=minute&filters=page",
        { filters: /filter/i, interval: /one of/ },
      ],
      ["/dropped?from=2026-11-10&to=2026-11-01", { to: /after or equal to from/ }],
    ];
    for (const [query, expected] of cases) {
      const { code, body } = await status(`/api/v1/stats/${id}${query}`);
      assert.equal(code, 422, query);
      assert.deepEqual(
        Object.keys(body.message).sort(),
        Object.keys(expected).sort(),
        `${query}: ${JSON.stringify(body.message)}`,
      );
      for (const [field, message] of Object.entries(expected))
        assert.match(body.message[field][0], message, `${query} ${field}`);
    }
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
