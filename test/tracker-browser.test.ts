// The tracker in a real browser: Debian Chromium loads a page of a tracked website (a test
// host name mapped to 127.0.0.1) that embeds the script from the analytics server, then
// navigates with pushState and back, fires a custom event, hides the tab and leaves the
// page, and the test reads what was stored. Also: data-dnt with Do Not Track on sends
// nothing, and nothing is stored in the browser.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser } from "playwright-core";
import type { StoredEvent } from "../src/storage/ports.js";
import { chromiumMissing, DESKTOP_CHROME_UA, launchChromium } from "./support/browser.js";
import { storedEvents as eventsOf } from "./support/stored-events.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const SITE = "tracked.test";
const ANALYTICS = "analytics.test";
const missing = chromiumMissing();
if (missing) console.log(`# SKIPPED tracker-browser tests: ${missing}`);

describe("tracker in a real browser", { skip: missing ?? false }, () => {
  let t: TestApp;
  let browser: Browser;
  let site: http.Server;
  let websiteId: number;
  let sitePort = 0;
  let analyticsBase = "";

  before(async () => {
    t = await createTestApp();
    const key = await t.createUser();
    websiteId = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: SITE } })
    ).json().data.id;
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    analyticsBase = `http://${ANALYTICS}:${(t.app.server.address() as AddressInfo).port}`;
    site = http.createServer((request, response) => {
      const dnt = request.url?.startsWith("/private") ? ' data-dnt="true"' : "";
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><html><head><title>Shop</title>
        <script defer src="${analyticsBase}/js/script.js" data-host="${analyticsBase}"${dnt}></script>
        </head><body><h1>Shop</h1></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    sitePort = (site.address() as AddressInfo).port;
    browser = await launchChromium([SITE, ANALYTICS], DESKTOP_CHROME_UA);
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await t?.close();
  });

  /** The website's stored events once `count` have arrived (hits travel by beacon). */
  async function storedEvents(count: number): Promise<StoredEvent[]> {
    for (let i = 0; i < 100; i++) {
      await t.container.buffer.flush();
      const events = await eventsOf(t.container.events, websiteId);
      if (events.length >= count) return events;
      await sleep(50);
    }
    return eventsOf(t.container.events, websiteId);
  }

  it("sends pageviews on load, pushState and popstate, and custom events", async () => {
    const context = await browser.newContext({
      userAgent: DESKTOP_CHROME_UA,
      viewport: { width: 1280, height: 720 },
    });
    const page = await context.newPage();
    const home = `http://${SITE}:${sitePort}/`;
    await page.goto(home);
    // Page code is passed as strings: it runs in the browser, not in this (DOM-less) program.
    await page.waitForFunction("'pa' in window");
    await page.evaluate("history.pushState({}, '', '/pricing?plan=pro#monthly')");
    await page.goBack();
    await page.waitForURL(home);
    await page.evaluate("window.pa.track({ name: 'Signup', value: 5, unit: 'EUR' })");
    const events = await storedEvents(6);
    // Beacons sent together may arrive in either order: compared as sets.
    const summary = events.map((e) => [e.kind, e.page, e.referrer, e.isVisit, e.event]).sort();
    assert.deepEqual(
      summary,
      [
        ["pageview", "/", "", true, ""],
        // Before each navigation, an engagement for the page left.
        ["engagement", "/", "", false, ""],
        // Not visits: the tracker sent the previous URL (on this site) as the referrer.
        ["pageview", "/pricing?plan=pro", "", false, ""],
        ["engagement", "/pricing?plan=pro", "", false, ""],
        ["pageview", "/", "", false, ""],
        ["event", "/", "", false, "Signup:5:EUR"],
      ].sort(),
    );
    const first = events[0];
    assert.equal(first?.browser, "Chrome");
    assert.equal(first?.os, "Linux");
    assert.equal(first?.device, "desktop");
    assert.equal(first?.resolution, "1280x720");
    assert.equal(new Set(events.map((e) => e.visitor)).size, 1, "one visitor throughout");
    assert.deepEqual(await context.cookies(), [], "no cookies");
    assert.equal(await page.evaluate("localStorage.length + sessionStorage.length"), 0, "no storage");
    await context.close();
  });

  /**
   * The stored events of the pages at `path` and below it, once there are `count` of them
   * (or after 5 s). Each test has its own path: a hit another test's page sent late (the
   * engagement of a context closed as the test ended) is not among them.
   */
  async function eventsAt(path: string, count: number): Promise<StoredEvent[]> {
    const at = (events: StoredEvent[]) =>
      events.filter((e) => e.page === path || e.page.startsWith(`${path}/`));
    for (let i = 0; i < 100; i++) {
      await t.container.buffer.flush();
      const events = at(await eventsOf(t.container.events, websiteId));
      if (events.length >= count) return events;
      await sleep(50);
    }
    return at(await eventsOf(t.container.events, websiteId));
  }
  /** The kinds and pages of events. */
  const kinds = (events: StoredEvent[]) => events.map((e) => [e.kind, e.page]);

  it("sends an engagement when a shown page is left, so a one-page visit has a duration", async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    const page = await context.newPage();
    await page.goto(`http://${SITE}:${sitePort}/article`);
    await page.waitForFunction("'pa' in window");
    await sleep(1500);
    await page.goto("about:blank");
    const events = await eventsAt("/article", 2);
    assert.deepEqual(kinds(events), [
      ["pageview", "/article"],
      ["engagement", "/article"],
    ]);
    const [view, engagement] = events as [StoredEvent, StoredEvent];
    assert.ok(engagement.ts.getTime() - view.ts.getTime() >= 1000, "stored when the page was left");
    assert.equal(engagement.visitor, view.visitor);
    await context.close();
  });

  it("sends an engagement when the tab is hidden, once per time it was shown", async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    const page = await context.newPage();
    await page.goto(`http://${SITE}:${sitePort}/docs`);
    await page.waitForFunction("'pa' in window");
    // A headless tab is always shown: the page is told it is hidden or shown as a browser
    // tells it when the user switches tabs (the state, then the event).
    const show = (state: "hidden" | "visible") =>
      page.evaluate(`Object.defineProperty(document, "visibilityState", { value: "${state}", configurable: true });
        document.dispatchEvent(new Event("visibilitychange"))`);
    await show("hidden");
    await show("hidden");
    await show("visible");
    await show("hidden");
    // Left while hidden: nothing more to say.
    await page.goto("about:blank");
    await eventsAt("/docs", 3);
    await sleep(300);
    assert.deepEqual(kinds(await eventsAt("/docs", 3)), [
      ["pageview", "/docs"],
      ["engagement", "/docs"],
      ["engagement", "/docs"],
    ]);
    await context.close();
  });

  it("falls back to fetch without sendBeacon, whose hits are read too", async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    await context.addInitScript({ content: "delete Navigator.prototype.sendBeacon" });
    const page = await context.newPage();
    await page.goto(`http://${SITE}:${sitePort}/no-beacon`);
    await page.waitForFunction("'pa' in window");
    await page.evaluate("window.pa.track({ name: 'Fallback' })");
    assert.deepEqual(kinds(await eventsAt("/no-beacon", 2)).sort(), [
      ["event", "/no-beacon"],
      ["pageview", "/no-beacon"],
    ]);
    await context.close();
  });

  it("lets a page read every answer of the endpoint, a refusal too", async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    const page = await context.newPage();
    await page.goto(`http://${SITE}:${sitePort}/reader`);
    // Without Access-Control-Allow-Origin the browser hides an answer: fetch rejects.
    const read = (init: string) =>
      page.evaluate(
        `fetch(${JSON.stringify(`${analyticsBase}/api/event`)}, ${init}).then((r) => r.status, (e) => String(e))`,
      );
    const page17k = JSON.stringify({ page: `http://${SITE}/?q=${"x".repeat(17 * 1024)}` });
    assert.equal(await read(`{ method: "POST", body: ${JSON.stringify(page17k)} }`), 413);
    assert.equal(await read(`{ method: "GET" }`), 405);
    assert.equal(await read(`{ method: "POST", body: '{"page": "http://${SITE}/read"}' }`), 202);
    await context.close();
  });

  it("sends nothing with data-dnt when Do Not Track is on, and tracks when it is off", async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    await context.addInitScript({
      content: "Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })",
    });
    const page = await context.newPage();
    await page.goto(`http://${SITE}:${sitePort}/private`);
    await page.waitForFunction("'pa' in window");
    await page.evaluate("history.pushState({}, '', '/private/next')");
    await sleep(500);
    assert.deepEqual(await eventsAt("/private", 0), [], "nothing sent");
    await context.close();

    const allowing = await browser.newContext({ userAgent: DESKTOP_CHROME_UA });
    const other = await allowing.newPage();
    await other.goto(`http://${SITE}:${sitePort}/private`);
    assert.deepEqual(
      kinds(await eventsAt("/private", 1)),
      [["pageview", "/private"]],
      "data-dnt alone does not stop tracking",
    );
    await allowing.close();
  });
});
