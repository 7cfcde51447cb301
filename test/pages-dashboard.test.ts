// The dashboard's view lives in its URL: filters (the API's syntax) narrow every list and
// total exactly as the API does; a value's link adds its filter, a chip removes one; a bad
// filter or list is a 422 page that says so; a list opens in full with search, pages and
// CSV; the owner reaches the same dashboard in the web app at any privacy, nobody else does.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { ManualClock } from "../src/clock.js";
import { dashboardHref, readDashboardState } from "../src/pages/dashboard-state.js";
import { rangeLabel } from "../src/pages/date-labels.js";
import { LISTS } from "../src/pages/page-model.js";
import { formatFilters, parseFilters } from "../src/stats/stats-filter.js";
import { hashPassword } from "../src/websites/password-hash.js";
import { decodeEntities as decode, type Rows, rowsOf, card as section } from "./support/page-reading.js";
import { asImport, FIXTURE_DOMAIN, FIXTURE_RANGE, FIXTURE_SETTINGS } from "./support/stats-fixture.js";
import { createTestApp, TEST_PASSWORD_COST, type TestApp } from "./support/test-app.js";
import { signedIn } from "./support/web-client.js";

/** Each row's value and the link it carries (null where the list filters nothing). */
function rowLinks(html: string): [string, string | null][] {
  return [
    ...html.matchAll(
      /<tr data-value="([^"]*)"><td class="name">[\s\S]*?(?:<a class="text" href="([^"]*)"|<span class="text")/g,
    ),
  ].map((match) => [decode(match[1] ?? ""), match[2] === undefined ? null : decode(match[2])]);
}

function totalValue(page: string, name: string): string {
  const found = new RegExp(`data-total="${name}" data-value="([^"]*)"`).exec(page);
  assert.ok(found, `the page has a ${name} total`);
  return found[1] ?? "";
}

describe("dashboard", () => {
  let t: TestApp;
  let key = "";
  let websiteId = 0;
  const range = `from=${FIXTURE_RANGE.from}&to=${FIXTURE_RANGE.to}`;

  before(async () => {
    // Hits written when a test writes them (or a request does), not by the flush timer.
    t = await createTestApp(
      { ANALYTICS_FLUSH_INTERVAL_MS: "3600000" },
      new ManualClock("2026-04-10T12:00:00Z"),
    );
    const created = await t.container.users.create({
      email: "owner@dash.example",
      passwordHash: await hashPassword("dashboard passphrase", TEST_PASSWORD_COST),
    });
    key = created.apiKey;
    const website = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: FIXTURE_DOMAIN, privacy: "0", ...FIXTURE_SETTINGS },
    });
    websiteId = website.json().data.id;
    const imported = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: { events: asImport(websiteId) },
    });
    assert.equal(imported.statusCode, 202, imported.body);
  });

  after(async () => {
    await t?.close();
  });

  const page = async (query: string, status = 200) => {
    const response = await t.app.inject({ url: `/${FIXTURE_DOMAIN}?${query}` });
    assert.equal(response.statusCode, status, response.body.slice(0, 300));
    return response.body;
  };
  const api = async (name: string, filters: string, perPage = 10): Promise<Rows> => {
    const query = new URLSearchParams({ name, ...FIXTURE_RANGE, per_page: String(perPage) });
    if (filters !== "") query.set("filters", filters);
    const response = await t.call(key, { url: `/api/v1/stats/${websiteId}?${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data.map((row: { value: string; count: number }) => [row.value, row.count]);
  };

  it("writes filters back as the API reads them, and the state as a link", () => {
    const written = "page==/a\\;b;referrer~google;city!=GB:London;event==back\\\\slash";
    const parsed = parseFilters(written);
    assert.ok("filters" in parsed);
    assert.equal(formatFilters(parsed.filters), written);
    const now = new Date("2026-04-10T12:00:00Z");
    const { state, errors } = readDashboardState(
      { ...FIXTURE_RANGE, filters: written, details: "page", page: "3" },
      now,
    );
    assert.deepEqual(errors, []);
    const again = readDashboardState(
      Object.fromEntries(new URL(dashboardHref("/x", state), "http://h").searchParams),
      now,
    );
    assert.deepEqual(again.state, state);
  });

  it("counts every list and total under the filters exactly as the API does", async () => {
    for (const filters of ["browser==Firefox", "country==US:United States;device!=desktop", "page~pricing"]) {
      const body = await page(`${range}&filters=${encodeURIComponent(filters)}`);
      for (const list of LISTS) {
        assert.deepEqual(
          rowsOf(section(body, `list-${list.stat}`)),
          await api(list.stat, filters),
          `${list.stat} under ${filters}`,
        );
      }
      const totals = await t.call(key, {
        url: `/api/v1/stats/${websiteId}/totals?${range}&filters=${encodeURIComponent(filters)}`,
      });
      assert.equal(totals.statusCode, 200, totals.body);
      for (const [name, value] of Object.entries(
        totals.json().data.totals as Record<string, number | null>,
      )) {
        if (name === "events") continue; // not a card
        assert.equal(totalValue(body, name), value === null ? "" : String(value), `${name} under ${filters}`);
      }
    }
  });

  it("links each value to the dashboard filtered by it, and each chip to the dashboard without it", async () => {
    const body = await page(range);
    const countries = rowLinks(section(body, "list-country"));
    const [value, link] = countries[0] ?? ["", null];
    assert.ok(link, "a country filters the dashboard");
    const query = new URL(link, "http://h").searchParams;
    assert.equal(query.get("filters"), `country==${value}`);
    assert.equal(query.get("from"), FIXTURE_RANGE.from);
    // A custom event filters by its name; an exit page filters nothing.
    const events = rowLinks(section(body, "list-event"));
    assert.ok(events.length > 0);
    for (const [event, href] of events) {
      assert.equal(
        new URL(href ?? "", "http://h").searchParams.get("filters"),
        `event==${event.split(":")[0]}`,
      );
    }
    assert.ok(rowLinks(section(body, "list-exit_page")).every(([, href]) => href === null));

    const filtered = await page(new URL(link, "http://h").search.slice(1));
    const withBrowser = rowLinks(section(filtered, "list-browser"))[0]?.[1];
    assert.ok(withBrowser);
    const both = new URL(withBrowser, "http://h").searchParams.get("filters") ?? "";
    assert.match(both, new RegExp(`^country==${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")};browser==`));
    // Clicking another country replaces the country filter instead of adding a second one.
    const twice = await page(new URL(withBrowser, "http://h").search.slice(1));
    const otherCountry = rowLinks(section(twice, "list-country"))[0]?.[1] ?? "";
    assert.equal((new URL(otherCountry, "http://h").searchParams.get("filters") ?? "").split(";").length, 2);

    const chips = [
      ...twice.matchAll(
        /<li class="chip" data-filter="(\w+)">[\s\S]*?href="([^"]*)" aria-label="Remove filter: ([^"]*)"/g,
      ),
    ];
    assert.deepEqual(
      chips.map((chip) => chip[1]),
      ["country", "browser"],
    );
    assert.match(decode(chips[0]?.[3] ?? ""), /^Country is /);
    const without = new URL(decode(chips[0]?.[2] ?? ""), "http://h").searchParams.get("filters") ?? "";
    assert.match(without, /^browser==/);
    assert.match(twice, /Clear all/);
  });

  it("answers a filter it cannot read with a 422 page that names it, and shows the whole dashboard", async () => {
    const body = await page(`${range}&filters=${encodeURIComponent("colour==red")}`, 422);
    assert.match(
      decode(body),
      /<p class="error" role="alert">The filter "colour==red" must begin with one of page, /,
    );
    assert.deepEqual(rowsOf(section(body, "list-page")), await api("page", ""));
    assert.doesNotMatch(body, /class="chip"/);
    const noList = await page(`${range}&details=nothing`, 422);
    assert.match(decode(noList), /There is no list named "nothing"/);
  });

  it("shows a part of the URL given twice, or too long, at its default and says why, with a 422", async () => {
    const twice = `from=2026-04-01&to=2026-04-01&from=2026-04-02`;
    const defaultFrom = 'name="from" value="2026-03-12"'; // the last 30 days up to 2026-04-10
    const owner = await signedIn(t, "owner@dash.example", "dashboard passphrase");
    for (const base of [`/${FIXTURE_DOMAIN}`, `/websites/${websiteId}/stats`]) {
      const response = await owner.get(`${base}?${twice}`);
      assert.equal(response.statusCode, 422, `${base}: ${response.body.slice(0, 300)}`);
      assert.match(
        response.body,
        /<p class="error" role="alert">The from must be given once, not 2 times\.<\/p>/,
      );
      assert.ok(response.body.includes(defaultFrom), `${base}: the range is the default`);
      assert.match(response.body, /id="list-referrer"/, `${base}: the whole dashboard`);
    }
    const filters = encodeURIComponent("browser==Firefox");
    const details = await owner.get(
      `/websites/${websiteId}/stats?${range}&details=page&details=referrer&filters=${filters}&filters=${filters}`,
    );
    assert.equal(details.statusCode, 422);
    assert.match(
      details.body,
      /The filters must be given once, not 2 times\. The details must be given once, not 2 times\./,
    );
    assert.doesNotMatch(details.body, /class="chip"/, "no filter");
    const search = await page(`${range}&details=page&search=a&search=b&page=1&page=2`, 422);
    assert.match(
      search,
      /The search must be given once, not 2 times\. The page must be given once, not 2 times\./,
    );
    assert.deepEqual(
      rowsOf(section(search, "details-page")),
      await api("page", "", 100),
      "the list in full, unsearched",
    );
    const csv = await t.app.inject({ url: `/${FIXTURE_DOMAIN}?${range}&details=page&format=csv&format=csv` });
    assert.equal(csv.statusCode, 422);
    assert.match(csv.headers["content-type"] as string, /^text\/html/);
    assert.match(csv.body, /The format must be given once, not 2 times\./);

    const long = await page(`from=2026-04-011&to=2026-04-03&unit=${"w".repeat(20)}`, 422);
    assert.match(long, /The from must be a real date in the format YYYY-MM-DD\./);
    assert.ok(long.includes(defaultFrom));
    const state = readDashboardState(
      { from: ["2026-04-01", "2026-04-02"], to: "2026-04-03" },
      new Date("2026-04-10T12:00:00Z"),
    );
    assert.deepEqual(state.errors, ["The from must be given once, not 2 times."]);
    assert.equal(state.state.range.from, "2026-03-12");
  });

  it("charts the range in the unit asked for, where the range allows it", async () => {
    const month = "from=2026-03-01&to=2026-04-09";
    const daily = await page(month);
    assert.match(daily, /<section class="card chart" data-unit="day"/);
    const units = [...daily.matchAll(/<nav class="units"[\s\S]*?<\/nav>/g)][0]?.[0] ?? "";
    assert.deepEqual(
      [...units.matchAll(/unit=(\w+)/g)].map((match) => match[1]),
      ["day", "week", "month"],
    );
    const weekly = await page(`${month}&unit=week&filters=browser%3D%3DFirefox`);
    assert.match(weekly, /<section class="card chart" data-unit="week"/);
    // The same view in another range goes back to that range's own unit; filters stay.
    const preset = /<ul class="presets"><li><a href="([^"]*)"/.exec(weekly)?.[1] ?? "";
    const query = new URL(decode(preset), "http://h").searchParams;
    assert.equal(query.get("unit"), null);
    assert.equal(query.get("filters"), "browser==Firefox");
    const refused = await page(`${month}&unit=hour`, 422);
    assert.match(refused, /The chart of 40 days can show one point per day, week, month\./);
    assert.match(refused, /<section class="card chart" data-unit="day"/);
    assert.doesNotMatch(await page("from=2026-04-01&to=2026-04-01"), /<nav class="units"/);
  });

  it("compares the totals with the period before or the same days a year before, as the link says", async () => {
    const now = new Date("2026-04-10T12:00:00Z");
    const year = readDashboardState({ ...FIXTURE_RANGE, compare: "year" }, now);
    assert.deepEqual(year.errors, []);
    assert.equal(year.state.compare, "year");
    const again = Object.fromEntries(new URL(dashboardHref("/x", year.state), "http://h").searchParams);
    assert.equal(again.compare, "year");
    assert.equal(readDashboardState(again, now).state.compare, "year");
    // January 1970 compares with days before any event: zeros, not a refusal (the API's
    // totals answer 422 for such a comparison; the page once answered 500).
    for (const compare of ["previous", "year"]) {
      const body = await page(`from=1970-01-01&to=1970-01-10&compare=${compare}`);
      assert.match(body, /data-total="pageviews" data-value="0"/, compare);
    }
    const unknown = readDashboardState({ ...FIXTURE_RANGE, compare: "decade" }, now);
    assert.deepEqual(unknown.errors, ["The comparison must be one of: previous, year, range."]);
    assert.equal(unknown.state.compare, "previous");

    // One visitor a year before the fixture's days, with two pageviews.
    const yearBefore = [0, 1].map((minute) => ({
      website_id: websiteId,
      ts: `2025-04-02T10:0${minute}:00Z`,
      page: `https://${FIXTURE_DOMAIN}/last-year`,
      ip: "81.2.69.142",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    }));
    const imported = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: { events: yearBefore },
    });
    assert.equal(imported.statusCode, 202, imported.body);
    const totals = await t.call(key, { url: `/api/v1/stats/${websiteId}/totals?${range}&compare=year` });
    assert.equal(totals.statusCode, 200, totals.body);
    const { comparison } = totals.json().data;
    assert.deepEqual([comparison.from, comparison.to], ["2025-04-01", "2025-04-03"]);
    assert.equal(comparison.totals.visitors, 1);

    const body = decode(await page(`${range}&compare=year`));
    const card = (name: string) =>
      body.slice(body.indexOf(`data-total="${name}"`)).split('<div class="card total"')[0] ?? "";
    for (const name of ["visitors", "pageviews"]) {
      const percent = Math.round(comparison.change[name]);
      assert.match(
        card(name),
        new RegExp(`${percent}%<span class="vs"> vs the same days a year before</span>`),
        name,
      );
    }
    assert.match(body, /<option value="year" selected>a year before<\/option>/);
    const preset = /<ul class="presets"><li><a href="([^"]*)"/.exec(body)?.[1] ?? "";
    assert.equal(
      new URL(preset, "http://h").searchParams.get("compare"),
      "year",
      "a preset keeps the comparison",
    );
    // The default compares with the period before, and says so.
    const previous = decode(await page(range));
    assert.match(previous, /vs the previous 3 days<\/span>|\(none in the previous 3 days\)/);
    assert.match(previous, /<option value="previous" selected>the period before<\/option>/);
    const refused = await page(`${range}&compare=decade`, 422);
    assert.match(refused, /The comparison must be one of: previous, year, range\./);

    // Other days: the picker shows them, first the period before; then any days given.
    const chosen = decode(await page(`${range}&compare=range`));
    assert.match(chosen, /<option value="range" selected>other days<\/option>/);
    assert.match(chosen, /name="compare_from" value="2026-03-29"/);
    assert.match(chosen, /name="compare_to" value="2026-03-31"/);
    const days = "compare_from=2025-04-01&compare_to=2025-04-03";
    const other = decode(await page(`${range}&compare=range&${days}`));
    const otherCard =
      other.slice(other.indexOf('data-total="visitors"')).split('<div class="card total"')[0] ?? "";
    const percent = Math.round(comparison.change.visitors);
    const said = `${percent}%<span class="vs"> vs ${rangeLabel({ from: "2025-04-01", to: "2025-04-03", days: 3 })}</span>`;
    assert.ok(otherCard.includes(said), `${otherCard} says ${said}`);
    const link = /<ul class="presets"><li><a href="([^"]*)"/.exec(other)?.[1] ?? "";
    const kept = new URL(link, "http://h").searchParams;
    assert.deepEqual(
      [kept.get("compare"), kept.get("compare_from"), kept.get("compare_to")],
      ["range", "2025-04-01", "2025-04-03"],
    );
    const backwards = await page(`${range}&compare=range&compare_from=2025-04-03&compare_to=2025-04-01`, 422);
    assert.match(backwards, /The compare to must be a date after or equal to compare from\./);
  });

  it("opens a list in full: every value a page of 100 at a time, searched, and as CSV", async () => {
    // 130 pages seen once each on 2026-04-05, the busiest first.
    const events = Array.from({ length: 130 }, (_, i) => ({
      website_id: websiteId,
      ts: `2026-04-05T10:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z`,
      page: `https://${FIXTURE_DOMAIN}/many/${String(i).padStart(3, "0")}`,
      ip: "81.2.69.142",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    }));
    const imported = await t.call(key, { method: "POST", url: "/api/v1/events", json: { events } });
    assert.equal(imported.statusCode, 202, imported.body);
    const day = "from=2026-04-05&to=2026-04-05";
    const first = await page(`${day}&details=page`);
    const list = section(first, "details-page");
    assert.equal(rowsOf(list).length, 100);
    assert.match(list, /130 values/);
    const next = /<a href="([^"]*)" rel="next">/.exec(list)?.[1];
    assert.ok(next, "a link to the second page");
    const second = rowsOf(
      section(await page(new URL(decode(next), "http://h").search.slice(1)), "details-page"),
    );
    assert.equal(second.length, 30);
    const all = [...rowsOf(list), ...second].map(([value]) => value).sort();
    assert.equal(new Set(all).size, 130);
    // A page past the last (an old or edited link) says so and leads to the last one.
    const past = section(await page(`${day}&details=page&page=5`), "details-page");
    assert.doesNotMatch(past, /Nothing recorded/);
    assert.match(past, /There is no page 5: these 130 values fill 2 pages\./);
    const last = /<a href="([^"]*)">the last page<\/a>/.exec(past)?.[1];
    assert.ok(last, "a link to the last page");
    assert.equal(new URL(decode(last), "http://h").searchParams.get("page"), "2");

    const searched = rowsOf(section(await page(`${day}&details=page&search=MANY/12`), "details-page"));
    assert.deepEqual(
      searched.map(([value]) => value),
      Array.from({ length: 10 }, (_, i) => `/many/12${i}`),
    );

    const csv = await t.app.inject({ url: `/${FIXTURE_DOMAIN}?${day}&details=page&format=csv` });
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.headers["content-type"], "text/csv; charset=utf-8");
    assert.match(
      String(csv.headers["content-disposition"]),
      /^attachment; filename="stats\.example-page-2026-04-05-2026-04-05\.csv"$/,
    );
    const apiCsv = await t.call(key, { url: `/api/v1/stats/${websiteId}?name=page&${day}&format=csv` });
    assert.equal(csv.body, apiCsv.body);
    assert.equal(csv.body.split("\r\n").length, 1 + 130 + 1);
  });

  it("weighs under 60 KB gzipped on first load, and loads nothing from another host", async () => {
    // A busy range: the fixture's lists and the 130 pages imported above.
    const response = await t.app.inject({
      url: `/${FIXTURE_DOMAIN}?from=2026-03-12&to=2026-04-10`,
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(response.headers["content-encoding"], "gzip");
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(
      gunzipSync(response.rawPayload).toString(),
    )?.[1];
    assert.ok(stylesheet);
    const css = await t.app.inject({ url: stylesheet, headers: { "accept-encoding": "gzip" } });
    const weight = response.rawPayload.length + css.rawPayload.length;
    assert.ok(weight <= 60 * 1024, `first load ${weight} bytes gzipped`);
    const policy = String(response.headers["content-security-policy"]);
    assert.match(policy, /default-src 'none'/);
    assert.doesNotMatch(policy, /https?:|\*/, "no source on another host");
    assert.doesNotMatch(gunzipSync(response.rawPayload).toString(), /<script|src="https?:/);
  });

  it("says who is on the website now, from the hits written (the buffer at most a flush behind)", async () => {
    const before = /data-now-visitors="(\d+)"/.exec(await page(range))?.[1];
    assert.equal(before, "0");
    for (const ip of ["81.2.69.142", "81.2.69.143"]) {
      const hit = await t.app.inject({
        method: "POST",
        url: "/api/event",
        remoteAddress: ip,
        headers: {
          "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
          "content-type": "text/plain",
        },
        payload: JSON.stringify({ page: `https://${FIXTURE_DOMAIN}/now`, referrer: "" }),
      });
      assert.equal(hit.statusCode, 202);
      assert.equal(hit.headers["x-analytics-dropped"], undefined);
    }
    // The view does not write the buffer (its flush interval does): a write would have
    // the view's other reads find today's changes again.
    assert.equal(/data-now-visitors="(\d+)"/.exec(await page(range))?.[1], "0", "still buffered");
    await t.container.buffer.flush();
    const body = await page(range);
    assert.match(
      body,
      /data-now-visitors="2"><span class="dot live" aria-hidden="true"><\/span>2 visitors in the last 5 minutes · 2 pageviews in the last 30/,
    );
  });

  it("is the owner's at any privacy, in the web app, and nobody else's", async () => {
    for (const ip of ["81.2.69.150", "203.0.113.5"]) {
      const hit = await t.app.inject({
        method: "POST",
        url: "/api/event",
        remoteAddress: ip,
        headers: { "user-agent": "curl/8.5.0", "content-type": "text/plain" },
        payload: JSON.stringify({ page: `https://${FIXTURE_DOMAIN}/` }),
      });
      assert.ok(hit.headers["x-analytics-dropped"], "dropped");
    }
    const today = "from=2026-04-10&to=2026-04-10";
    assert.doesNotMatch(await page(today), /kept-out/, "the public page does not say what was dropped");
    await t.call(key, { method: "PUT", url: `/api/v1/websites/${websiteId}`, form: { privacy: "1" } });
    assert.equal((await t.app.inject({ url: `/${FIXTURE_DOMAIN}?${range}` })).statusCode, 404);
    const url = `/websites/${websiteId}/stats?${range}&filters=${encodeURIComponent("browser==Firefox")}`;
    const stranger = await t.app.inject({ url });
    assert.equal(stranger.statusCode, 303);
    assert.equal(stranger.headers.location, `/sign-in?next=${encodeURIComponent(url)}`);

    const owner = await signedIn(t, "owner@dash.example", "dashboard passphrase");
    const response = await owner.get(url);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(rowsOf(section(response.body, "list-os")), await api("os", "browser==Firefox"));
    assert.match(
      response.body,
      /href="\/websites\/\d+\/stats\?from=2026-04-01&amp;to=2026-04-03&amp;filters=browser%3D%3DFirefox%3Bos%3D%3D/,
    );
    assert.doesNotMatch(response.body, /kept-out/, "not under filters");
    assert.match(
      (await owner.get(`/websites/${websiteId}/stats?${today}`)).body,
      /data-kept-out="2">Kept out of these numbers: 2 hits \(1 from bots, 1 from excluded addresses\)\./,
      "the owner sees what was dropped in the range",
    );
    assert.match(
      (await owner.get(`/websites/${websiteId}/stats?${range}`)).body,
      /data-kept-out="0">No hit was kept out of these numbers\./,
    );
    const list = await owner.get("/");
    assert.match(list.body, new RegExp(`<a class="site-name" href="/websites/${websiteId}/stats">`));

    await t.container.users.create({
      email: "else@dash.example",
      passwordHash: await hashPassword("another passphrase", TEST_PASSWORD_COST),
    });
    const other = await signedIn(t, "else@dash.example", "another passphrase");
    assert.equal((await other.get(url)).statusCode, 404);
  });
});
