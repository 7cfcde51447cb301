// What a stats page shows (CONTRACT.md section 6): the same numbers as GET /api/v1/stats
// over the hand-computed fixture (every list, the days, the hours, the totals and their
// change against the period before), hostile values escaped, and the pieces the page is
// made of (the escaping template, the date range, the chart scale) on their own.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { parseRange } from "../src/pages/date-range.js";
import { escapeHtml, html } from "../src/pages/html.js";
import { LISTS, TOP_ROWS } from "../src/pages/page-model.js";
import { scaleFor } from "../src/pages/svg-chart.js";
import { listRows, type Rows } from "./support/page-reading.js";
import {
  asImport,
  EXPECTED,
  FIXTURE_DOMAIN,
  FIXTURE_RANGE,
  FIXTURE_SETTINGS,
} from "./support/stats-fixture.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

/** Rows of the chart's table or the hours' table: [key, visitors, pageviews]. */
function tableRows(page: string, attribute: "point" | "hour"): [string, number, number][] {
  const pattern = new RegExp(
    `<tr data-${attribute}="([^"]+)">[\\s\\S]*?data-visitors="(\\d+)"[\\s\\S]*?data-pageviews="(\\d+)"`,
    "g",
  );
  return [...page.matchAll(pattern)].map((match) => [match[1] ?? "", Number(match[2]), Number(match[3])]);
}

function totalCard(page: string, name: string): { value: string; change: string } {
  const card = new RegExp(
    `data-total="${name}"[\\s\\S]*?<div class="value">([^<]*)</div>([\\s\\S]*?)</div>`,
  ).exec(page);
  assert.ok(card, `the page has a ${name} total`);
  return { value: card[1] ?? "", change: (card[2] ?? "").replace(/<[^>]+>/g, "") };
}

describe("stats page numbers", () => {
  let t: TestApp;
  let key: string;
  let websiteId: number;

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-04-10T12:00:00Z"));
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: FIXTURE_DOMAIN, privacy: "0", ...FIXTURE_SETTINGS },
    });
    websiteId = created.json().data.id;
    const imported = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: { events: asImport(websiteId) },
    });
    assert.equal(imported.statusCode, 202);
  });

  after(async () => {
    await t?.close();
  });

  async function apiRows(name: string, from: string, to: string, perPage = TOP_ROWS): Promise<Rows> {
    const response = await t.call(key, {
      url: `/api/v1/stats/${websiteId}?name=${name}&from=${from}&to=${to}&per_page=${perPage}`,
    });
    assert.equal(response.statusCode, 200);
    return response.json().data.map((row: { value: string; count: number }) => [row.value, row.count]);
  }

  async function page(query: string): Promise<string> {
    const response = await t.app.inject({ url: `/${FIXTURE_DOMAIN}?${query}` });
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    return response.body;
  }

  it("lists what GET /api/v1/stats returns, for every list", async () => {
    const body = await page(`from=${FIXTURE_RANGE.from}&to=${FIXTURE_RANGE.to}`);
    for (const list of LISTS) {
      const shown = listRows(body, list.stat);
      assert.deepEqual(shown, await apiRows(list.stat, FIXTURE_RANGE.from, FIXTURE_RANGE.to), list.stat);
      assert.deepEqual(shown, EXPECTED[list.stat], `${list.stat} matches the hand-computed fixture`);
    }
  });

  it("charts every day of the range, zero-filled, and every hour, as the API counts them", async () => {
    const from = "2026-03-30";
    const to = "2026-04-05";
    const body = await page(`from=${from}&to=${to}`);
    const visitors = new Map(await apiRows("visitors", from, to, 100));
    const pageviews = new Map(await apiRows("pageviews", from, to, 100));
    const days = tableRows(body, "point");
    assert.equal(days.length, 7);
    assert.deepEqual(
      days,
      days.map(([day]) => [day, visitors.get(day) ?? 0, pageviews.get(day) ?? 0]),
    );
    assert.deepEqual(days[0], ["2026-03-30", 0, 0]);
    assert.deepEqual(days[2], ["2026-04-01", 2, 4]);

    const hourVisitors = new Map(await apiRows("visitors_hours", from, to, 100));
    const hourPageviews = new Map(await apiRows("pageviews_hours", from, to, 100));
    const hours = tableRows(body, "hour");
    assert.equal(hours.length, 24);
    assert.deepEqual(
      hours,
      hours.map(([hour]) => [hour, hourVisitors.get(hour) ?? 0, hourPageviews.get(hour) ?? 0]),
    );
    assert.deepEqual(hours[9], ["09", 3, 4]);
  });

  it("charts hours for one day, days for 30, weeks for a year and months for two", async () => {
    /** The chart's unit, its points as plotted (hover targets) and as tabled, and its axis labels. */
    const chart = (body: string) => {
      const section = /<section class="card chart" data-unit="(\w+)"[\s\S]*?<\/section>/.exec(body);
      assert.ok(section, "the page has a chart");
      const plot = /<svg class="plot"[\s\S]*?<\/svg>/.exec(section[0])?.[0] ?? "";
      const labels = /<svg class="x-labels"[\s\S]*?<\/svg>/.exec(section[0])?.[0] ?? "";
      return {
        unit: section[1],
        plotted: plot.match(/<rect class="hit"/g)?.length ?? 0,
        rows: tableRows(section[0], "point"),
        labels: [...labels.matchAll(/>([^<]+)<\/text>/g)].map((match) => match[1]),
        note: /<p class="note">([^<]*)<\/p>/.exec(section[0])?.[1] ?? "",
      };
    };

    const day = chart(await page("from=2026-04-01&to=2026-04-01"));
    assert.equal(day.unit, "hour");
    assert.equal(day.plotted, 24);
    assert.equal(day.rows.length, 24);
    const visitors = new Map(await apiRows("visitors_hours", "2026-04-01", "2026-04-01", 100));
    const pageviews = new Map(await apiRows("pageviews_hours", "2026-04-01", "2026-04-01", 100));
    assert.deepEqual(
      day.rows,
      day.rows.map(([key]) => [key, visitors.get(key.slice(11)) ?? 0, pageviews.get(key.slice(11)) ?? 0]),
    );
    assert.deepEqual(day.rows[9], ["2026-04-01T09", 2, 3]);
    assert.deepEqual(day.labels, ["00:00", "06:00", "12:00", "18:00", "23:00"]);

    const month = chart(await page("from=2026-03-12&to=2026-04-10"));
    assert.equal(month.unit, "day");
    assert.equal(month.plotted, 30);
    assert.equal(month.rows.length, 30);
    assert.equal(month.note, "");

    // 2025-04-11 to 2026-04-10: 3 days (Friday to Sunday), 51 weeks, 5 days.
    const year = chart(await page("from=2025-04-11&to=2026-04-10"));
    assert.equal(year.unit, "week");
    assert.equal(year.plotted, 53);
    assert.equal(year.rows.length, 53);
    assert.deepEqual(
      year.rows.filter(([, v, p]) => v + p > 0),
      [["2026-03-30/2026-04-05", 5, 7]],
      "the fixture's days add up in their week",
    );
    assert.equal(year.labels.length, 5);
    assert.match(year.note, /unique visitors of each of its days, added up/);

    const twoYears = chart(await page("from=2024-04-11&to=2026-04-10"));
    assert.equal(twoYears.unit, "month");
    assert.equal(twoYears.plotted, 25);
    assert.deepEqual(twoYears.rows[0], ["2024-04-11/2024-04-30", 0, 0]);
    assert.deepEqual(twoYears.rows[24], ["2026-04-01/2026-04-10", 5, 7]);
  });

  it("shows totals and their change against the period before", async () => {
    const whole = await page(`from=${FIXTURE_RANGE.from}&to=${FIXTURE_RANGE.to}`);
    assert.equal(totalCard(whole, "visitors").value, "5");
    assert.equal(totalCard(whole, "pageviews").value, "7");
    // Six visits (stats-fixture.ts): 7 pageviews, 2 bounces, 4,365 seconds in all.
    assert.equal(totalCard(whole, "visits").value, "6");
    assert.equal(totalCard(whole, "views_per_visit").value, "1.17");
    assert.equal(totalCard(whole, "bounce_rate").value, "33.3%");
    assert.equal(totalCard(whole, "visit_duration").value, "12m 08s");
    assert.match(totalCard(whole, "visitors").change, /up new \(none in the previous 3 days\)/);

    // 2026-04-02..03 against 2026-03-31..04-01: visitors 3 vs 2, pageviews 3 vs 4.
    const body = await page("from=2026-04-02&to=2026-04-03");
    assert.equal(totalCard(body, "visitors").value, "3");
    assert.match(totalCard(body, "visitors").change, /up 50% vs the previous 2 days/);
    assert.equal(totalCard(body, "pageviews").value, "3");
    assert.match(totalCard(body, "pageviews").change, /down 25% vs the previous 2 days/);
  });

  it("defaults to the last 30 days and offers presets", async () => {
    const body = await page("");
    const days = tableRows(body, "point");
    assert.equal(days.length, 30);
    assert.equal(days[29]?.[0], "2026-04-10");
    assert.ok(body.includes('href="/stats.example?from=2026-03-12&amp;to=2026-04-10" aria-current="true"'));
    assert.equal(totalCard(body, "pageviews").value, "7");
    assert.ok(body.includes("IP geolocation by DB-IP"), "credits the geolocation data");
  });

  it("escapes hostile values", async () => {
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
    const visit = {
      website_id: websiteId,
      ts: "2026-04-05T10:00:00Z",
      ip: "81.2.69.142",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    };
    const imported = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: {
        events: [
          { ...visit, page: `https://${FIXTURE_DOMAIN}/x?utm_campaign=${encodeURIComponent(hostile)}` },
          { ...visit, page: `https://${FIXTURE_DOMAIN}/x`, event: { name: hostile } },
        ],
      },
    });
    assert.equal(imported.statusCode, 202, imported.body);
    const body = await page("from=2026-04-05&to=2026-04-05");
    assert.ok(!body.includes("<script>"), "no script element got through");
    assert.ok(!body.includes("<img src=x"), "no element got through");
    assert.ok(body.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert.deepEqual(listRows(body, "campaign"), [[hostile, 1]]);
    assert.deepEqual(listRows(body, "event"), [[`${hostile}::`, 1]]);
  });
});

describe("stats page parts", () => {
  it("escapes every interpolation once, and joins arrays", () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&amp;</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
    );
    const inner = html`<b>${"<i>"}</b>`;
    assert.equal(inner.text, "<b>&lt;i&gt;</b>");
    assert.equal(
      html`<p>${inner}${["<", html`<br>`]}${null}${false}${undefined}${0}</p>`.text,
      "<p><b>&lt;i&gt;</b>&lt;<br>0</p>",
    );
    assert.equal(html`<a title="${`" onmouseover="x`}">`.text, '<a title="&quot; onmouseover=&quot;x">');
  });

  it("reads date ranges and their previous period", () => {
    const now = new Date("2026-04-10T23:59:59Z");
    assert.deepEqual(parseRange(undefined, undefined, now), {
      ok: true,
      range: { from: "2026-03-12", to: "2026-04-10", days: 30 },
    });
    assert.deepEqual(parseRange("2024-02-28", "2024-03-01", now), {
      ok: true,
      range: { from: "2024-02-28", to: "2024-03-01", days: 3 },
    });
    assert.deepEqual(parseRange("2026-01-01", "", now), {
      ok: true,
      range: { from: "2026-01-01", to: "2026-01-30", days: 30 },
    });
    assert.deepEqual(parseRange("2026-02-29", "x", now), {
      ok: false,
      errors: [
        "The from must be a real date in the format YYYY-MM-DD.",
        "The to must be a real date in the format YYYY-MM-DD.",
      ],
    });
    assert.equal(parseRange("1969-12-31", "1970-01-05", now).ok, false);
  });

  it("scales charts to a round, even top", () => {
    assert.deepEqual(scaleFor(0), { max: 2, ticks: [0, 1, 2] });
    assert.deepEqual(scaleFor(3), { max: 4, ticks: [0, 2, 4] });
    assert.deepEqual(scaleFor(57), { max: 60, ticks: [0, 30, 60] });
    assert.deepEqual(scaleFor(1000), { max: 1000, ticks: [0, 500, 1000] });
    assert.deepEqual(scaleFor(1001), { max: 2000, ticks: [0, 1000, 2000] });
  });
});
