// POST /api/event and GET /js/script.js (CONTRACT.md section 5): one test per drop reason,
// what a kept hit stores, CORS, the body cap, proxies, and the tracker asset.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { ManualClock } from "../src/clock.js";
import { storedEvents } from "./support/stored-events.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

interface HitOptions {
  body: unknown;
  ip?: string;
  userAgent?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

describe("public collection endpoint", () => {
  let t: TestApp;
  let key: string;
  let websiteId: number;
  const clock = new ManualClock("2026-03-02T12:34:56Z");

  const hit = ({
    body,
    ip = "8.8.8.8",
    userAgent = CHROME,
    contentType = "text/plain",
    headers = {},
  }: HitOptions) =>
    t.app.inject({
      method: "POST",
      url: "/api/event",
      remoteAddress: ip,
      headers: {
        "content-type": contentType,
        "user-agent": userAgent,
        "accept-language": "de-DE,de;q=0.9",
        ...headers,
      },
      payload: typeof body === "string" ? body : JSON.stringify(body),
    });
  const stored = async () => {
    await t.container.buffer.flush();
    return storedEvents(t.container.events, websiteId);
  };

  before(async () => {
    t = await createTestApp({}, clock);
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: {
        domain: "shop.example",
        exclude_ips: "203.0.113.0/24\n2001:db8::/32\n198.51.100.7",
        exclude_params: "fbclid\nsession",
        // Its hits come from Google's 8.8.8.8, whose place is well known: kept here.
        exclude_datacenters: "0",
      },
    });
    websiteId = created.json().data.id;
  });
  after(() => t.close());

  it("keeps a pageview and stores it enriched, without the IP or user agent", async () => {
    const response = await hit({
      body: {
        page: "https://www.shop.example/caf%C3%A9/list?b=2&fbclid=abc&a=1&session=x&utm_campaign=spring#reviews",
        referrer: "https://www.Google.com/search?q=coffee",
        screen_resolution: "1920x1080",
      },
    });
    assert.equal(response.statusCode, 202);
    assert.equal(response.body, "");
    assert.equal(response.headers["x-analytics-dropped"], undefined);
    assert.equal(response.headers["access-control-allow-origin"], "*");
    const [event] = await stored();
    assert.ok(event);
    assert.equal(event.ts.toISOString(), "2026-03-02T12:34:56.000Z");
    assert.equal(event.kind, "pageview");
    assert.equal(event.isVisit, true);
    assert.equal(event.page, "/café/list?b=2&a=1&utm_campaign=spring");
    assert.equal(event.referrer, "google.com");
    assert.equal(event.campaign, "spring");
    assert.equal(event.browser, "Chrome");
    assert.equal(event.os, "Windows");
    assert.equal(event.device, "desktop");
    assert.equal(event.resolution, "1920x1080");
    assert.equal(event.language, "de");
    assert.equal(event.country, "US:United States");
    assert.equal(event.continent, "NA:North America");
    assert.equal(event.city, "US:Mountain View");
    assert.equal(event.event, "");
    assert.equal(typeof event.visitor, "bigint");
    const everything = JSON.stringify(event, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    assert.ok(
      !everything.includes("8.8.8.8") && !everything.includes("Chrome/124"),
      "no raw IP or UA stored",
    );
  });

  it("reads the same JSON sent as application/json or text/plain, and drops another type as invalid", async () => {
    const before = (await stored()).length;
    // sendBeacon's type, the fetch fallback's, and JSON's, with or without a charset.
    const readable = [
      "text/plain;charset=UTF-8",
      "text/plain",
      "application/json",
      "application/json; charset=utf-8",
      "Text/Plain; charset=UTF-8",
    ];
    for (const contentType of readable) {
      const response = await hit({ body: { page: "https://shop.example/json" }, contentType });
      assert.equal(response.statusCode, 202, contentType);
      assert.equal(response.headers["x-analytics-dropped"], undefined, contentType);
    }
    assert.equal((await stored()).length, before + readable.length);
    // The same JSON under another type (or none) is not read: 202, dropped as invalid.
    const others = ["application/xml", "application/x-www-form-urlencoded", "text/html", "text/plainx", ""];
    for (const contentType of others) {
      const response = await hit({ body: { page: "https://shop.example/json" }, contentType });
      assert.equal(response.statusCode, 202, contentType);
      assert.equal(response.headers["x-analytics-dropped"], "invalid", contentType);
      assert.equal(response.headers["access-control-allow-origin"], "*", contentType);
    }
    const none = await t.app.inject({
      method: "POST",
      url: "/api/event",
      headers: { "user-agent": CHROME },
      payload: JSON.stringify({ page: "https://shop.example/json" }),
    });
    assert.equal(none.statusCode, 202);
    assert.equal(none.headers["x-analytics-dropped"], "invalid", "no content type");
    assert.equal((await stored()).length, before + readable.length);
  });

  it("counts an internal referrer as a pageview but not a visit", async () => {
    await hit({ body: { page: "https://shop.example/internal", referrer: "https://www.shop.example/" } });
    const event = (await stored()).find((e) => e.page === "/internal");
    assert.equal(event?.isVisit, false);
    assert.equal(event?.referrer, "", "a referrer is kept only for the visit it began");
  });

  it("stores a custom event with the original product's field rules", async () => {
    const cases: [unknown, string][] = [
      [{ name: "Purchase", value: "49.99", unit: "USD" }, "Purchase:49.99:USD"],
      [{ name: "Sign:up" }, "Sign up::"],
      [{ name: "Big", value: "12345678901" }, "Big::"],
      [{ name: "Negative", value: "-5", unit: "EUR" }, "Negative::EUR"],
      [{ name: "Zero", value: 0 }, "Zero::"],
      [{ name: "Num", value: 7 }, "Num:7:"],
      [{ name: "LongUnit", value: "1", unit: "u".repeat(33) }, "LongUnit:1:"],
    ];
    for (const [event] of cases) {
      const response = await hit({ body: { page: "https://shop.example/checkout", event } });
      assert.equal(response.statusCode, 202);
      assert.equal(response.headers["x-analytics-dropped"], undefined, JSON.stringify(event));
    }
    const events = (await stored()).filter((e) => e.kind === "event").map((e) => e.event);
    assert.deepEqual(
      events,
      cases.map(([, expected]) => expected),
    );
    assert.ok((await stored()).filter((e) => e.kind === "event").every((e) => !e.isVisit));
  });

  it("stores an engagement (engagement: true) as neither a pageview nor a visit; a custom event wins", async () => {
    const sent: unknown[] = [true, 1, "yes", false];
    for (const engagement of sent) {
      const page = `https://shop.example/read?as=${String(engagement)}`;
      const response = await hit({ body: { page, referrer: "https://news.example/", engagement } });
      assert.equal(response.headers["x-analytics-dropped"], undefined);
    }
    await hit({ body: { page: "https://shop.example/both", engagement: true, event: { name: "Both" } } });
    const kinds = (await stored())
      .filter((e) => e.page.startsWith("/read") || e.page === "/both")
      .map((e) => [e.page, e.kind, e.isVisit, e.referrer]);
    assert.deepEqual(kinds, [
      ["/read?as=true", "engagement", false, ""],
      ["/read?as=1", "engagement", false, ""],
      // Anything else is no engagement: a pageview, here a visit from news.example.
      ["/read?as=yes", "pageview", true, "news.example"],
      ["/read?as=false", "pageview", true, "news.example"],
      ["/both", "event", false, ""],
    ]);
  });

  it("decides a hit without waiting once its website is cached, and enriches it when its batch is written", async () => {
    const { pipeline } = t.container;
    const raw = {
      page: "https://shop.example/screened?fbclid=1&size=m",
      referrer: "https://news.example/story",
      screenResolution: "1920x1080",
      event: null,
      engagement: false,
      ip: "8.8.8.8",
      userAgent: IPHONE,
      acceptLanguage: "fr-CA",
      ts: clock.now(),
    };
    const first = pipeline.screenPublic({ ...raw, page: "https://uncached.shop.example/" });
    assert.ok(first instanceof Promise, "a host not cached yet is looked up");
    assert.deepEqual(await first, { kept: false, reason: "unknown_website", website: null });
    const screened = pipeline.screenPublic(raw);
    assert.ok(!(screened instanceof Promise) && screened.kept, "a cached host is decided at once");
    const cachedMiss = pipeline.screenPublic({ ...raw, page: "https://uncached.shop.example/" });
    assert.deepEqual(
      cachedMiss,
      { kept: false, reason: "unknown_website", website: null },
      "misses are cached too",
    );
    const [event] = await pipeline.enrich([screened.hit]);
    assert.deepEqual(
      { ...event, visitor: typeof event?.visitor },
      {
        websiteId,
        ts: clock.now(),
        visitor: "bigint",
        kind: "pageview",
        isVisit: true,
        page: "/screened?size=m",
        referrer: "news.example",
        campaign: "",
        browser: "Safari",
        os: "iOS",
        device: "mobile",
        resolution: "1920x1080",
        language: "fr",
        country: "US:United States",
        city: "US:Mountain View",
        continent: "NA:North America",
        event: "",
      },
    );
  });

  it("drops a hit for an unknown website as unknown_website", async () => {
    for (const page of [
      "https://unknown.example/",
      "https://sub.shop.example/",
      "https://shop.example.evil.com/",
    ]) {
      const response = await hit({ body: { page } });
      assert.equal(response.statusCode, 202);
      assert.equal(response.headers["x-analytics-dropped"], "unknown_website", page);
    }
  });

  it("drops a bot as bot, and an empty user agent too", async () => {
    const googlebot = await hit({
      body: { page: "https://shop.example/" },
      userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    });
    assert.equal(googlebot.headers["x-analytics-dropped"], "bot");
    const empty = await hit({ body: { page: "https://shop.example/" }, userAgent: "" });
    assert.equal(empty.headers["x-analytics-dropped"], "bot");
    const browser = await hit({ body: { page: "https://shop.example/" }, userAgent: IPHONE });
    assert.equal(browser.headers["x-analytics-dropped"], undefined);
  });

  it("keeps bots when the website does not exclude them", async () => {
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "bots-welcome.example", exclude_bots: "0", exclude_datacenters: "0" },
    });
    assert.equal(created.statusCode, 201);
    const response = await hit({ body: { page: "https://bots-welcome.example/" }, userAgent: "curl/8.5.0" });
    assert.equal(response.headers["x-analytics-dropped"], undefined);
  });

  it("drops excluded addresses (IPv4, IPv6, CIDR) as excluded_ip", async () => {
    for (const ip of ["203.0.113.9", "198.51.100.7", "2001:db8::42", "::ffff:203.0.113.200"]) {
      const response = await hit({ body: { page: "https://shop.example/" }, ip });
      assert.equal(response.headers["x-analytics-dropped"], "excluded_ip", ip);
    }
    const near = await hit({ body: { page: "https://shop.example/" }, ip: "198.51.100.8" });
    assert.equal(near.headers["x-analytics-dropped"], undefined);
  });

  it("drops what it cannot read as invalid", async () => {
    const bodies = [
      "not json",
      "",
      "[]",
      "null",
      JSON.stringify({}),
      JSON.stringify({ page: 42 }),
      JSON.stringify({ page: "/relative" }),
      JSON.stringify({ page: "javascript:alert(1)" }),
      JSON.stringify({ page: "ftp://shop.example/" }),
      JSON.stringify({ page: "https://shop.example/", event: { name: "" } }),
      JSON.stringify({ page: "https://shop.example/", event: { name: ":::" } }),
      JSON.stringify({ page: "https://shop.example/", event: "Purchase" }),
    ];
    for (const body of bodies) {
      const response = await hit({ body });
      assert.equal(response.statusCode, 202, body);
      assert.equal(response.headers["x-analytics-dropped"], "invalid", body);
    }
  });

  it("refuses bodies over 16 KB, in an answer the tracker's page may read", async () => {
    const response = await hit({ body: { page: `https://shop.example/?q=${"x".repeat(17 * 1024)}` } });
    assert.equal(response.statusCode, 413);
    assert.equal(response.headers["access-control-allow-origin"], "*");
  });

  it("answers another method with 405 and Allow, as the API does", async () => {
    for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE"] as const) {
      const response = await t.app.inject({ method, url: "/api/event" });
      assert.equal(response.statusCode, 405, method);
      assert.equal(response.headers.allow, "OPTIONS, POST", method);
      assert.equal(response.headers["access-control-allow-origin"], "*", method);
      if (method !== "HEAD") {
        assert.deepEqual(response.json(), {
          message: `The ${method} method is not supported for this route. Supported methods: OPTIONS, POST.`,
          status: 405,
        });
      }
    }
    const withQuery = await t.app.inject({ method: "GET", url: "/api/event?page=x" });
    assert.equal(withQuery.statusCode, 405);
  });

  it("answers the CORS preflight", async () => {
    const response = await t.app.inject({
      method: "OPTIONS",
      url: "/api/event",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
    });
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers["access-control-allow-origin"], "*");
    assert.match(String(response.headers["access-control-allow-methods"]), /POST/);
    assert.match(String(response.headers["access-control-allow-headers"]), /Content-Type/i);
  });

  it("stores nothing for dropped hits", async () => {
    const count = await t.container.events.countEvents(websiteId);
    await hit({ body: { page: "https://shop.example/" }, userAgent: "" });
    await hit({ body: "garbage" });
    await hit({ body: { page: "https://shop.example/" }, ip: "203.0.113.1" });
    assert.equal(await t.container.events.countEvents(websiteId), count);
  });
});

describe("collection behind a proxy and under load", () => {
  it("uses the socket address unless ANALYTICS_TRUST_PROXY=1, then the X-Forwarded-For entry the proxy added", async () => {
    for (const trust of ["0", "1"]) {
      const t = await createTestApp({ ANALYTICS_TRUST_PROXY: trust });
      try {
        const key = await t.createUser();
        const { id } = (
          await t.call(key, {
            method: "POST",
            url: "/api/v1/websites",
            form: { domain: "proxied.example", exclude_ips: "81.2.69.142" },
          })
        ).json().data;
        const response = await t.app.inject({
          method: "POST",
          url: "/api/event",
          remoteAddress: "10.0.0.1",
          // The client wrote the first entry; the proxy at 10.0.0.1 added the last.
          headers: {
            "content-type": "text/plain",
            "user-agent": CHROME,
            "x-forwarded-for": "203.0.113.5, 81.2.69.142",
          },
          payload: JSON.stringify({ page: "https://proxied.example/" }),
        });
        if (trust === "1") {
          assert.equal(response.headers["x-analytics-dropped"], "excluded_ip");
        } else {
          assert.equal(response.headers["x-analytics-dropped"], undefined);
          await t.container.buffer.flush();
          const [event] = await storedEvents(t.container.events, id);
          assert.equal(event?.country, "", "a private socket address has no location");
        }
      } finally {
        await t.close();
      }
    }
  });

  it("drops hits over the per-IP allowance as rate_limited, per address and per minute", async () => {
    const clock = new ManualClock("2026-03-02T12:00:00Z");
    const t = await createTestApp({ ANALYTICS_COLLECT_RATE_LIMIT: "3" }, clock);
    try {
      const key = await t.createUser();
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "busy.example" } });
      const send = (ip: string) =>
        t.app.inject({
          method: "POST",
          url: "/api/event",
          remoteAddress: ip,
          headers: { "content-type": "text/plain", "user-agent": CHROME },
          payload: JSON.stringify({ page: "https://busy.example/" }),
        });
      const drops = [];
      for (let i = 0; i < 5; i++) drops.push((await send("81.2.69.142")).headers["x-analytics-dropped"]);
      assert.deepEqual(drops, [undefined, undefined, undefined, "rate_limited", "rate_limited"]);
      assert.equal(
        (await send("2.125.160.216")).headers["x-analytics-dropped"],
        undefined,
        "another address",
      );
      clock.advance(60_000);
      assert.equal((await send("81.2.69.142")).headers["x-analytics-dropped"], undefined, "a new minute");
    } finally {
      await t.close();
    }
  });
});

describe("tracker script", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("is under 1.5 KB gzipped, cached for long, with an ETag", async () => {
    const response = await t.app.inject({ url: "/js/script.js", headers: { "accept-encoding": "gzip, br" } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers["content-encoding"], "gzip");
    assert.match(String(response.headers["content-type"]), /^application\/javascript/);
    assert.ok(response.rawPayload.length < 1536, `gzipped size ${response.rawPayload.length}`);
    assert.match(String(response.headers["cache-control"]), /max-age=(\d{6,})/);
    const source = gunzipSync(response.rawPayload).toString();
    assert.match(source, /sendBeacon/);
    assert.match(source, /\/api\/event/);
    assert.ok(!/cookie|localStorage|sessionStorage|indexedDB/i.test(source), "no cookies or storage");
    const etag = String(response.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const again = await t.app.inject({ url: "/js/script.js", headers: { "if-none-match": etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
    const plain = await t.app.inject({ url: "/js/script.js" });
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(plain.body, source);
  });
});

describe("collection fast path over real HTTP", () => {
  let t: TestApp;
  let base = "";
  let websiteId = 0;
  before(async () => {
    t = await createTestApp({ ANALYTICS_TRUST_PROXY: "1" });
    const key = await t.createUser();
    websiteId = (
      await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "fast.example", exclude_ips: "203.0.113.7" },
      })
    ).json().data.id;
    base = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  after(() => t.close());

  const cases: [string, string | undefined, Record<string, string>, number, string | undefined][] = [
    ["kept", JSON.stringify({ page: "https://fast.example/a" }), {}, 202, undefined],
    ["invalid JSON", "{", {}, 202, "invalid"],
    ["no page", JSON.stringify({ referrer: "" }), {}, 202, "invalid"],
    [
      "another content type",
      JSON.stringify({ page: "https://fast.example/xml" }),
      { "content-type": "application/xml" },
      202,
      "invalid",
    ],
    [
      "an empty content type",
      JSON.stringify({ page: "https://fast.example/" }),
      { "content-type": "" },
      202,
      "invalid",
    ],
    [
      "JSON with a charset",
      JSON.stringify({ page: "https://fast.example/json" }),
      { "content-type": "application/json; charset=utf-8" },
      202,
      undefined,
    ],
    ["unknown website", JSON.stringify({ page: "https://nope.example/" }), {}, 202, "unknown_website"],
    ["bot", JSON.stringify({ page: "https://fast.example/" }), { "user-agent": "curl/8.5.0" }, 202, "bot"],
    [
      "excluded address from X-Forwarded-For",
      JSON.stringify({ page: "https://fast.example/" }),
      { "x-forwarded-for": "10.0.0.1, 203.0.113.7" },
      202,
      "excluded_ip",
    ],
    [
      "too large",
      JSON.stringify({ page: `https://fast.example/?q=${"x".repeat(17_000)}` }),
      {},
      413,
      undefined,
    ],
  ];

  it("answers every case as the in-process route does", async () => {
    for (const [name, body, headers, status, dropped] of cases) {
      const allHeaders = { "content-type": "text/plain", "user-agent": CHROME, ...headers };
      const real = await fetch(`${base}/api/event`, {
        method: "POST",
        headers: allHeaders,
        body: body ?? "",
      });
      assert.equal(real.status, status, name);
      assert.equal(real.headers.get("x-analytics-dropped") ?? undefined, dropped, name);
      assert.equal(real.headers.get("access-control-allow-origin"), "*", name);
      if (status === 202) {
        assert.equal(await real.text(), "", name);
      } else {
        assert.deepEqual(await real.json(), { message: "The request body is too large.", status: 413 }, name);
      }
      const injected = await t.app.inject({
        method: "POST",
        url: "/api/event",
        headers: allHeaders,
        payload: body ?? "",
        remoteAddress: "127.0.0.1",
      });
      assert.equal(injected.statusCode, status, `${name} (route)`);
      assert.equal(injected.headers["x-analytics-dropped"], dropped, `${name} (route)`);
      assert.equal(injected.headers["access-control-allow-origin"], "*", `${name} (route)`);
    }
    await t.container.buffer.flush();
    assert.equal(await t.container.events.countEvents(websiteId), 4, "two kept hits on each path");
  });

  it("gives each of many hits arriving together its own answer", async () => {
    const before = await t.container.events.countEvents(websiteId);
    const sent = Array.from({ length: 60 }, (_, i) => {
      const kind = ["kept", "bot", "unknown"][i % 3] as string;
      return fetch(`${base}/api/event`, {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": kind === "bot" ? "curl/8.5.0" : CHROME },
        body: JSON.stringify({ page: `https://${kind === "unknown" ? "nope" : "fast"}.example/many/${i}` }),
      }).then((response) => ({
        kind,
        status: response.status,
        dropped: response.headers.get("x-analytics-dropped"),
      }));
    });
    const expected = { kept: null, bot: "bot", unknown: "unknown_website" } as Record<string, string | null>;
    for (const answer of await Promise.all(sent)) {
      assert.equal(answer.status, 202);
      assert.equal(answer.dropped, expected[answer.kind], answer.kind);
    }
    await t.container.buffer.flush();
    assert.equal(await t.container.events.countEvents(websiteId), before + 20);
  });

  it("keeps idle connections open as long as the framework would (trackers reuse them)", () => {
    assert.equal(t.app.server.keepAliveTimeout, 72_000);
    // An idle connection between requests is bound by the keep-alive timeout alone, not by
    // the (shorter) headers timeout: connection-limits.test.ts checks it over a real socket.
    assert.ok(t.app.server.requestTimeout >= t.app.server.headersTimeout);
  });

  it("leaves other methods and URLs to the framework", async () => {
    const preflight = await fetch(`${base}/api/event`, { method: "OPTIONS" });
    assert.equal(preflight.status, 204);
    const withQuery = await fetch(`${base}/api/event?x=1`, {
      method: "POST",
      headers: { "user-agent": CHROME },
      body: JSON.stringify({ page: "https://fast.example/q" }),
    });
    assert.equal(withQuery.status, 202);
    assert.equal(withQuery.headers.get("x-analytics-dropped"), null);
    const get = await fetch(`${base}/api/event`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "OPTIONS, POST");
    assert.equal(get.headers.get("access-control-allow-origin"), "*");
    // No type at all (a body of bytes): not read, as on the route.
    const untyped = await fetch(`${base}/api/event`, {
      method: "POST",
      headers: { "user-agent": CHROME },
      body: new TextEncoder().encode(JSON.stringify({ page: "https://fast.example/untyped" })),
    });
    assert.equal(untyped.status, 202);
    assert.equal(untyped.headers.get("x-analytics-dropped"), "invalid");
  });

  it("lets the page read a 413 however the body came", async () => {
    const big = JSON.stringify({ page: `https://fast.example/?q=${"x".repeat(17_000)}` });
    // Declared too large up front, and streamed past the limit without a length.
    const declared = await fetch(`${base}/api/event`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      body: big,
    });
    const chunked = await fetch(`${base}/api/event`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    for (const response of [declared, chunked]) {
      assert.equal(response.status, 413);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
    }
  });
});
