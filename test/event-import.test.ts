// POST /api/v1/events (CONTRACT.md section 5): all or nothing, errors naming the index and
// field, only the caller's websites, the same filters as the public endpoint, and events
// durable once the answer is sent.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { storedEvents } from "./support/stored-events.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";

describe("events API", () => {
  let t: TestApp;
  let key: string;
  let websiteId: number;
  let otherWebsiteId: number;
  const clock = new ManualClock("2026-05-10T08:00:00Z");

  const post = (events: unknown, apiKey = key) =>
    t.call(apiKey, { method: "POST", url: "/api/v1/events", json: { events } });
  const event = (overrides: Record<string, unknown> = {}) => ({
    website_id: websiteId,
    ts: "2026-05-09T23:59:59Z",
    page: "https://import.example/docs?utm_campaign=launch",
    referrer: "https://news.ycombinator.com/item?id=1",
    screen_resolution: "390x844",
    ip: "81.2.69.142",
    user_agent: FIREFOX,
    accept_language: "fr-CH, fr;q=0.9",
    ...overrides,
  });

  before(async () => {
    t = await createTestApp({}, clock);
    key = await t.createUser();
    websiteId = (
      await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "import.example", exclude_ips: "192.0.2.0/24" },
      })
    ).json().data.id;
    const other = await t.createUser();
    otherWebsiteId = (
      await t.call(other, { method: "POST", url: "/api/v1/websites", form: { domain: "not-mine.example" } })
    ).json().data.id;
  });
  after(() => t.close());

  it("stores the batch before answering and counts drops by reason", async () => {
    const response = await post([
      event(),
      event({ page: "https://import.example/pricing", ts: "2026-05-10T07:00:00.123+02:00" }),
      event({ user_agent: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)" }),
      event({ ip: "192.0.2.44" }),
      event({ event: { name: "Download", value: "3", unit: "files" } }),
    ]);
    assert.equal(response.statusCode, 202);
    assert.deepEqual(response.json(), {
      accepted: 3,
      dropped: { unknown_website: 0, bot: 1, excluded_ip: 1, invalid: 0, rate_limited: 0 },
      status: 202,
    });
    // No flush: an acknowledged import is already in the store.
    const stored = await storedEvents(t.container.events, websiteId);
    assert.equal(stored.length, 3);
    const [first, download, second] = stored;
    assert.equal(first?.ts.toISOString(), "2026-05-09T23:59:59.000Z");
    assert.equal(first?.page, "/docs?utm_campaign=launch");
    assert.equal(first?.campaign, "launch");
    assert.equal(first?.referrer, "news.ycombinator.com");
    assert.equal(first?.browser, "Firefox");
    assert.equal(first?.os, "Linux");
    assert.equal(first?.language, "fr");
    assert.equal(first?.country, "GB:United Kingdom");
    assert.equal(first?.city, "GB:London");
    assert.equal(first?.continent, "EU:Europe");
    assert.equal(download?.event, "Download:3:files");
    assert.equal(second?.ts.toISOString(), "2026-05-10T05:00:00.000Z", "stored to the second");
    assert.equal(first?.visitor, download?.visitor, "same visitor within a day");
    assert.notEqual(first?.visitor, second?.visitor, "a new day is a new visitor id");
  });

  it("refuses an event before 1970 in its website's time zone, a day no range can name", async () => {
    const west = (
      await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "west.example", timezone: "America/New_York" },
      })
    ).json().data.id as number;
    const refused = await post([
      event({ website_id: west, ts: "1970-01-01T04:59:59Z" }), // 23:59:59 on 31 December 1969 there
      event({ website_id: west, ts: "1970-01-01T05:00:00Z" }), // its first day's midnight
      event({ ts: "1970-01-01T00:00:00Z" }), // a website in UTC: its first day
    ]);
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json().message, {
      "events.0.ts": ["The ts must not be before 1970-01-01 in the website's time zone (America/New_York)."],
    });
    const taken = await post([event({ website_id: west, ts: "1970-01-01T05:00:00Z" })]);
    assert.equal(taken.statusCode, 202, taken.body);
    const first = await t.call(key, {
      url: `/api/v1/stats/${west}?name=pageviews&from=1970-01-01&to=1970-01-01`,
    });
    assert.equal(first.json().data[0]?.count, 1, "counted on the website's first day");
  });

  it("rejects the whole batch naming each invalid index and field, storing nothing", async () => {
    const before = await t.container.events.countEvents(websiteId);
    const response = await post([
      event(),
      event({ page: "not a url", ts: "yesterday" }),
      event({ website_id: otherWebsiteId }),
      event({ website_id: 999_999, ip: "999.1.1.1" }),
      event({ ts: "2026-05-11T08:00:00Z", event: { name: "" } }),
      event({ screen_resolution: 1920, user_agent: ["a", "b"] }),
    ]);
    assert.equal(response.statusCode, 422);
    const { message } = response.json();
    // The schema's findings and the checks' (ownership, URL, IP, future) alike, in event order.
    assert.deepEqual(Object.keys(message), [
      "events.1.ts",
      "events.1.page",
      "events.2.website_id",
      "events.3.website_id",
      "events.3.ip",
      "events.4.event.name",
      "events.4.ts",
      "events.5.screen_resolution",
      "events.5.user_agent",
    ]);
    assert.deepEqual(message["events.1.ts"], ["The ts format is invalid."]);
    assert.deepEqual(message["events.4.event.name"], ["The name must be at least 1 characters."]);
    assert.equal(await t.container.events.countEvents(websiteId), before);
    // Without schema errors, the semantic checks report every event too.
    const semantic = await post([
      event(),
      event({ page: "not a url" }),
      event({ website_id: otherWebsiteId }),
      event({ website_id: 999_999, ip: "999.1.1.1" }),
      event({ ts: "2026-05-11T08:00:00Z" }),
      // Before 1970: the stores count days from it (such an event once broke every fold).
      event({ ts: "1969-12-31T23:59:59Z" }),
      event({ ts: "0001-01-01T00:00:00Z" }),
    ]);
    assert.equal(semantic.statusCode, 422);
    assert.deepEqual(semantic.json().message, {
      "events.1.page": ["The page must be an absolute http or https URL."],
      "events.2.website_id": ["The website id does not name one of your websites."],
      "events.3.website_id": ["The website id does not name one of your websites."],
      "events.3.ip": ["The ip must be an IPv4 or IPv6 address."],
      "events.4.ts": ["The ts must not be in the future."],
      "events.5.ts": ["The ts must not be before 1970-01-01."],
      "events.6.ts": ["The ts must not be before 1970-01-01."],
    });
    assert.equal(await t.container.events.countEvents(websiteId), before);
    // A bad event long after good ones, which the import thread has screened by then.
    const late = await post([...Array.from({ length: 700 }, () => event()), event({ page: "nope" })]);
    assert.equal(late.statusCode, 422);
    assert.deepEqual(late.json().message, {
      "events.700.page": ["The page must be an absolute http or https URL."],
    });
    assert.equal(await t.container.events.countEvents(websiteId), before);
  });

  it("reports every invalid event, those the schema refuses and those the checks do", async () => {
    const before = await t.container.events.countEvents(websiteId);
    const { page: _, ...withoutPage } = event();
    const response = await post([
      event(),
      withoutPage,
      event(),
      event({ ip: "not-an-ip" }),
      event(),
      event({ website_id: otherWebsiteId }),
    ]);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      message: {
        "events.1.page": ["The page field is required."],
        "events.3.ip": ["The ip must be an IPv4 or IPv6 address."],
        "events.5.website_id": ["The website id does not name one of your websites."],
      },
      status: 422,
    });
    // One event wrong both ways: each field is reported once, by whichever step found it.
    const both = await post([event({ page: 42, ts: "soon", ip: "999.1.1.1", website_id: otherWebsiteId })]);
    assert.deepEqual(both.json().message, {
      "events.0.ts": ["The ts format is invalid."],
      "events.0.website_id": ["The website id does not name one of your websites."],
      "events.0.page": ["The page must be a string."],
      "events.0.ip": ["The ip must be an IPv4 or IPv6 address."],
    });
    assert.equal(await t.container.events.countEvents(websiteId), before, "nothing stored");
  });

  it("names an event that is not an object by its place in the list", async () => {
    const before = await t.container.events.countEvents(websiteId);
    const response = await post([event(), 1, "x", null, [event()], event({ ip: "bad" })]);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json().message, {
      "events.1": ["events.1 must be an object."],
      "events.2": ["events.2 must be an object."],
      "events.3": ["events.3 must be an object."],
      "events.4": ["events.4 must be an object."],
      "events.5.ip": ["The ip must be an IPv4 or IPv6 address."],
    });
    assert.equal(await t.container.events.countEvents(websiteId), before, "nothing stored");
  });

  it("names every field of the wrong type once, with the type it must be", async () => {
    const before = await t.container.events.countEvents(websiteId);
    // JSON says its types: nothing is taken for a string, a number or true (5 was "5").
    const response = await post([
      event({ website_id: String(websiteId), ts: 1_778_400_000, page: 42, engagement: "true" }),
      event({ referrer: 1, screen_resolution: 5, ip: 5, user_agent: 5, accept_language: [1] }),
      event({ event: { name: 5, value: [1], unit: 3 } }),
      event({ event: { name: "Buy", value: true } }),
      event({ event: "Buy", referrer: null }),
    ]);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json().message, {
      "events.0.website_id": ["The website id must be an integer."],
      "events.0.ts": ["The ts must be a string."],
      "events.0.page": ["The page must be a string."],
      "events.0.engagement": ["The engagement must be true or false."],
      "events.1.referrer": ["The referrer must be a string."],
      "events.1.screen_resolution": ["The screen resolution must be a string."],
      "events.1.ip": ["The ip must be a string."],
      "events.1.user_agent": ["The user agent must be a string."],
      "events.1.accept_language": ["The accept language must be a string."],
      "events.2.event.name": ["The name must be a string."],
      "events.2.event.value": ["The value must be a string or a number."],
      "events.2.event.unit": ["The unit must be a string."],
      "events.3.event.value": ["The value must be a string or a number."],
      "events.4.referrer": ["The referrer must be a string."],
      "events.4.event": ["The event must be an object."],
    });
    // A value of one of its types is held to that type's limits alone.
    const long = await post([event({ event: { name: "Buy", value: "9".repeat(65) } })]);
    assert.deepEqual(long.json().message, {
      "events.0.event.value": [
        "The value must not be greater than 64 characters (UTF-16 code units: an emoji counts as 2 or more).",
      ],
    });
    for (const value of ["49.99", 49.99]) {
      assert.equal((await post([event({ event: { name: "Buy", value } })])).statusCode, 202, String(value));
    }
    assert.equal(await t.container.events.countEvents(websiteId), before + 2);
  });

  it("lists the first 100 invalid fields and counts the rest", async () => {
    const { page: _, ...withoutPage } = event();
    // 500 bad events, alternately refused by the schema and by the checks.
    const events = Array.from({ length: 500 }, (_, index) =>
      index % 2 === 0 ? withoutPage : event({ ip: `bad-${index}` }),
    );
    const response = await post(events);
    assert.equal(response.statusCode, 422);
    const { message } = response.json();
    const listed = Object.keys(message).filter((field) => field !== "events");
    assert.equal(listed.length, 100);
    assert.deepEqual(listed.slice(0, 3), ["events.0.page", "events.1.ip", "events.2.page"]);
    assert.equal(listed.at(-1), "events.99.ip", "the first ones, in event order");
    assert.deepEqual(message.events, ["And 400 more invalid fields (only the first 100 are listed)."]);
    // An event with two bad fields counts both.
    const doubly = Array.from({ length: 60 }, () => event({ ip: "x", website_id: otherWebsiteId }));
    assert.deepEqual((await post(doubly)).json().message.events, [
      "And 20 more invalid fields (only the first 100 are listed).",
    ]);
    // Exactly 100 leaves nothing to count.
    const hundred = (await post(Array.from({ length: 100 }, () => event({ ip: "x" })))).json().message;
    assert.equal(Object.keys(hundred).length, 100);
    assert.equal(hundred.events, undefined);
  });

  it("requires a list of 1 to 10,000 events", async () => {
    assert.equal((await post([])).statusCode, 422);
    const tooMany = await post(Array.from({ length: 10_001 }, () => event()));
    assert.equal(tooMany.statusCode, 422);
    assert.deepEqual(tooMany.json().message, { events: ["The events must not have more than 10000 items."] });
    const missing = await t.call(key, { method: "POST", url: "/api/v1/events", json: {} });
    assert.deepEqual(missing.json().message, { events: ["The events field is required."] });
    const noKey = await t.call(null, { method: "POST", url: "/api/v1/events", json: { events: [event()] } });
    assert.equal(noKey.statusCode, 401);
  });

  it("reads its body as every other route reads theirs", async () => {
    const raw = (url: string, payload: string, contentType = "application/json") =>
      t.app.inject({
        method: "POST",
        url,
        headers: { authorization: `Bearer ${key}`, "content-type": contentType },
        payload,
      });
    // Not JSON, empty, or poisoned: the 400 of a JSON route read on the request's thread.
    const poisoned = [
      '{"__proto__": {"admin": true}, "events": []}',
      '{"\\u005f_proto__": {"admin": true}, "events": []}',
      '{"events": [], "constructor": {"prototype": {"admin": true}}}',
      '\ufeff{"events": [], "__proto__": {}}',
    ];
    for (const payload of ['{"events": [', "", ...poisoned]) {
      const framework = await raw("/api/v1/websites", payload);
      const response = await raw("/api/v1/events", payload);
      assert.equal(framework.statusCode, 400, payload);
      assert.equal(response.statusCode, 400, payload);
      assert.deepEqual(response.json(), framework.json(), payload);
    }
    // Plain text is not read at all, as on every route; a form is read by its own parser
    // and checked all the same.
    const text = await raw("/api/v1/events", "hello", "text/plain");
    assert.equal(text.statusCode, 415);
    assert.deepEqual(text.json(), (await raw("/api/v1/websites", "hello", "text/plain")).json());
    const form = await raw("/api/v1/events", "events=1", "application/x-www-form-urlencoded");
    assert.equal(form.statusCode, 422);
    assert.deepEqual(form.json().message, { events: ["The events must be a list."] });
  });

  it("hashes today's visitors as the collection endpoint does", async () => {
    const userAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";
    const collected = await t.app.inject({
      method: "POST",
      url: "/api/event",
      remoteAddress: "81.2.69.142",
      headers: { "content-type": "application/json", "user-agent": userAgent },
      payload: JSON.stringify({ page: "https://import.example/same-visitor" }),
    });
    assert.equal(collected.statusCode, 202);
    await t.container.buffer.flush();
    const imported = await post([
      event({
        ts: clock.now().toISOString(),
        page: "https://import.example/same-visitor",
        ip: "81.2.69.142",
        user_agent: userAgent,
      }),
    ]);
    assert.equal(imported.statusCode, 202);
    const visitors = (await storedEvents(t.container.events, websiteId))
      .filter((stored) => stored.page === "/same-visitor")
      .map((stored) => stored.visitor);
    assert.equal(visitors.length, 2);
    assert.equal(visitors[0], visitors[1]);
  });

  it("accepts 10,000 events in one request", async () => {
    const before = await t.container.events.countEvents(websiteId);
    const batch = Array.from({ length: 10_000 }, (_, i) =>
      event({ page: `https://import.example/p/${i % 50}`, ip: `81.2.${i % 250}.${(i * 7) % 250}` }),
    );
    const response = await post(batch);
    assert.equal(response.statusCode, 202);
    assert.equal(response.json().accepted, 10_000);
    assert.equal(await t.container.events.countEvents(websiteId), before + 10_000);
  });

  it("gives an old day one salt for every request of an import", async () => {
    const old = (ip: string) => event({ ts: "2025-01-01T10:00:00Z", ip, page: "https://import.example/old" });
    assert.equal((await post([old("8.8.8.8"), old("8.8.8.8"), old("8.8.4.4")])).statusCode, 202);
    assert.equal((await post([old("8.8.8.8")])).statusCode, 202);
    const oldEvents = (await storedEvents(t.container.events, websiteId)).filter((e) => e.page === "/old");
    const [a, b, c, d] = oldEvents.map((e) => e.visitor);
    assert.equal(a, b, "consistent within one request");
    assert.notEqual(a, c, "different visitors differ");
    assert.equal(a, d, "and across the requests of an import");
  });

  it("deletes a website's events with the website", async () => {
    assert.ok((await t.container.events.countEvents(websiteId)) > 0);
    const response = await t.call(key, { method: "DELETE", url: `/api/v1/websites/${websiteId}` });
    assert.equal(response.statusCode, 200);
    assert.equal(await t.container.events.countEvents(websiteId), 0);
  });
});
