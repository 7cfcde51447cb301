// Stats pages in a real browser (Debian Chromium): a public page opens to anyone, a private
// one to its owner's API key only; on a password-protected one the visitor signs in
// through the form, sees the fixture's numbers, narrows the range with the picker, and the
// page breaks no rule of its own Content-Security-Policy. A click on a value filters the
// whole dashboard (a chip removes it), and a list opens in full with search and CSV.
// Screenshots at phone and desktop widths, light and dark, with long values, are saved
// under test-output/pages/ for a person to look at, each checked by axe-core. A form that
// another website posts to the page is refused and changes nothing.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { ManualClock } from "../src/clock.js";
import { accessibilityProblems, chromiumMissing, launchChromium, watchPolicy } from "./support/browser.js";
import { asImport, FIXTURE_DOMAIN, FIXTURE_SETTINGS } from "./support/stats-fixture.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const PASSWORD = "correct horse";
/** Another website (a different site from 127.0.0.1), whose pages post forms to ours. */
const ATTACKER_HOST = "attacker.test";
const OUTPUT = fileURLToPath(new URL("../../test-output/pages/", import.meta.url));
const missing = chromiumMissing();
if (missing) console.log(`# SKIPPED pages-browser tests: ${missing}`);

describe("stats page in a real browser", { skip: missing ?? false }, () => {
  let t: TestApp;
  let browser: Browser;
  let base = "";
  let attacker: http.Server;
  let attackerBase = "";
  let ownerKey = "";

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-04-10T12:00:00Z"));
    const key = await t.createUser();
    ownerKey = key;
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: FIXTURE_DOMAIN, privacy: "2", password: PASSWORD, ...FIXTURE_SETTINGS },
    });
    const id = created.json().data.id;
    assert.equal(
      (await t.call(key, { method: "POST", url: "/api/v1/events", json: { events: asImport(id) } }))
        .statusCode,
      202,
    );
    // A long page and campaign, which must be cut in their cells and chips, not widen the
    // page; before the days the other cases count (the screenshots' range takes it in).
    const long = {
      website_id: id,
      ts: "2026-03-05T08:00:00Z",
      page: `https://${FIXTURE_DOMAIN}/${"a-very-long-path-segment/".repeat(8)}?utm_campaign=${"spring".repeat(20)}`,
      ip: "81.2.69.142",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    };
    assert.equal(
      (await t.call(key, { method: "POST", url: "/api/v1/events", json: { events: [long] } })).statusCode,
      202,
    );
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // Each page of the other website posts one form to the stats page as soon as it loads.
    attacker = http.createServer((request, response) => {
      const fields = new URL(request.url ?? "/", "http://x").searchParams;
      const inputs = [...fields].map(
        ([name, value]) => `<input type="hidden" name="${name}" value="${value}">`,
      );
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><form id="f" method="post" action="${base}/${FIXTURE_DOMAIN}">${inputs.join("")}</form>` +
          `<script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerBase = `http://${ATTACKER_HOST}:${(attacker.address() as AddressInfo).port}`;
    browser = await launchChromium([ATTACKER_HOST]);
    fs.mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await t?.close();
  });

  async function total(page: Page, name: string): Promise<string> {
    return (await page.locator(`[data-total="${name}"] .value`).textContent())?.trim() ?? "";
  }

  it("signs in through the form, shows the numbers, and follows the range picker", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/${FIXTURE_DOMAIN}`);
    await page.screenshot({ path: `${OUTPUT}password-form-1280.png` });
    await page.fill("#password", "wrong");
    await page.click('form:has(#password) button[type="submit"]');
    await page.waitForSelector(".error");
    assert.match((await page.locator(".error").textContent()) ?? "", /Wrong password/);

    await page.fill("#password", PASSWORD);
    await page.click('form:has(#password) button[type="submit"]');
    await page.waitForSelector('[data-total="visitors"]');
    assert.equal(await total(page, "visitors"), "5");
    assert.equal(await total(page, "pageviews"), "7");
    assert.equal(
      await page.locator('#list-country tr[data-value="GB:United Kingdom"] td.count').textContent(),
      "2",
    );
    assert.equal(await page.evaluate("document.cookie"), "", "the access cookie is HttpOnly");
    const [cookie] = await context.cookies();
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, "Lax");
    assert.equal(cookie?.path, `/${FIXTURE_DOMAIN}`);

    await page.fill('input[name="from"]', "2026-04-02");
    await page.fill('input[name="to"]', "2026-04-03");
    await page.click('.picker button[type="submit"]');
    await page.waitForURL(/from=2026-04-02&to=2026-04-03/);
    assert.equal(await total(page, "visitors"), "3");
    assert.equal(await total(page, "pageviews"), "3");
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("filters the whole dashboard by a click, removes the filter by its chip, and opens a list in full", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/${FIXTURE_DOMAIN}?from=2026-04-01&to=2026-04-03`);
    await page.fill("#password", PASSWORD);
    await page.click('form:has(#password) button[type="submit"]');
    await page.waitForSelector('[data-total="visitors"]');
    const everyone = await total(page, "visitors");

    await page.click('#list-country tr[data-value="GB:United Kingdom"] a.text');
    await page.waitForURL(/filters=country%3D%3DGB%3AUnited\+Kingdom/);
    assert.equal(await page.locator(".chip").count(), 1);
    assert.match((await page.locator(".chip .chip-text").textContent()) ?? "", /^Country is United Kingdom/);
    assert.equal(await total(page, "visitors"), "2", "the totals follow the filter");
    assert.deepEqual(
      await page
        .locator("#list-country tr[data-value]")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-value"))),
      ["GB:United Kingdom"],
    );
    // The range picker keeps the filter.
    await page.fill('input[name="from"]', "2026-04-02");
    await page.click('.picker button[type="submit"]');
    await page.waitForURL(/from=2026-04-02&to=2026-04-03&compare=previous&filters=country/);
    await page.click(".chip-remove");
    await page.waitForURL((url) => !url.search.includes("filters"));
    assert.equal(await page.locator(".chip").count(), 0);

    await page.goto(`${base}/${FIXTURE_DOMAIN}?from=2026-04-01&to=2026-04-03`);
    assert.equal(await total(page, "visitors"), everyone);
    await page.click("#list-page .more a");
    await page.waitForSelector("#details-page");
    const all = await page.locator("#details-page tr[data-value]").count();
    await page.fill("#details-search", "PRICING");
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForURL(/search=PRICING/);
    const found = await page
      .locator("#details-page tr[data-value]")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-value")));
    assert.ok(found.length > 0 && found.length < all, `${found.length} of ${all} pages match`);
    assert.ok(found.every((value) => value?.toLowerCase().includes("pricing")));
    const download = page.waitForEvent("download");
    await page.click("text=Download CSV");
    const file = await (await download).path();
    const lines = fs.readFileSync(file, "utf8").trim().split("\r\n");
    assert.equal(lines[0], "value,count");
    assert.equal(lines.length, 1 + found.length);
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("shows a public page to anyone, and a private one to its owner's key alone", async () => {
    for (const [domain, privacy] of [
      ["open.example", "0"],
      ["closed.example", "1"],
    ] as const) {
      const made = await t.call(ownerKey, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain, privacy, ...FIXTURE_SETTINGS },
      });
      assert.equal(made.statusCode, 201, made.body);
      const events = asImport(made.json().data.id).map((event) => ({
        ...event,
        page: event.page.replace(FIXTURE_DOMAIN, domain),
        referrer: event.referrer?.replace(FIXTURE_DOMAIN, domain),
      }));
      const imported = await t.call(ownerKey, { method: "POST", url: "/api/v1/events", json: { events } });
      assert.equal(imported.statusCode, 202, imported.body);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    const range = "from=2026-04-01&to=2026-04-03";
    const open = await page.goto(`${base}/open.example?${range}`);
    assert.equal(open?.status(), 200);
    assert.equal(await total(page, "visitors"), "5");
    assert.equal(await page.locator("form.signout").count(), 0, "nothing to sign out of");

    const closed = await page.goto(`${base}/closed.example?${range}`);
    assert.equal(closed?.status(), 404);
    assert.match((await page.textContent("h1")) ?? "", /Page not found/);
    await page.click("summary");
    await page.fill("#key", "not the key");
    await page.click('form:has(#key) button[type="submit"]');
    await page.waitForSelector(".error");
    await page.fill("#key", ownerKey);
    await page.click('form:has(#key) button[type="submit"]');
    await page.waitForSelector('[data-total="visitors"]');
    assert.equal(await total(page, "visitors"), "5");
    assert.match(page.url(), /from=2026-04-01&to=2026-04-03/, "the range asked for is kept");
    assert.deepEqual(await accessibilityProblems(page), []);
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("refuses forms another website posts to the page, and signs out from the page itself", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/${FIXTURE_DOMAIN}`);
    await page.fill("#password", PASSWORD);
    await page.click('form:has(#password) button[type="submit"]');
    await page.waitForSelector('[data-total="visitors"]');

    for (const fields of ["sign_out=1", "password=wrong", `password=${encodeURIComponent(PASSWORD)}`]) {
      const posted = page.waitForResponse((response) => response.request().method() === "POST");
      await page.goto(`${attackerBase}/?${fields}`);
      const answer = await posted;
      assert.equal(answer.status(), 403, fields);
      assert.equal(await answer.headerValue("set-cookie"), null, fields);
      await page.waitForSelector("text=sent from another website");
    }
    await page.goto(`${base}/${FIXTURE_DOMAIN}`);
    await page.waitForSelector('[data-total="visitors"]');
    assert.equal(await total(page, "visitors"), "5", "still signed in");

    await page.click('form.signout button[type="submit"]');
    await page.waitForSelector("#password");
    assert.deepEqual(await context.cookies(), [], "signed out");
    await context.close();
  });

  for (const width of [390, 1280]) {
    for (const scheme of ["light", "dark"] as const) {
      it(`renders at ${width}px in ${scheme} mode (screenshot)`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          colorScheme: scheme,
          deviceScaleFactor: width < 600 ? 2 : 1,
        });
        const page = await context.newPage();
        const violations = watchPolicy(page);
        await page.goto(`${base}/${FIXTURE_DOMAIN}?from=2026-03-01&to=2026-04-06`);
        await page.fill("#password", PASSWORD);
        await page.click('form:has(#password) button[type="submit"]');
        await page.waitForSelector('[data-total="visitors"]');
        // Nothing wider than the screen: no sideways scrolling on a phone.
        const overflow = await page.evaluate<number>(
          "document.documentElement.scrollWidth - window.innerWidth",
        );
        assert.ok(overflow <= 0, `the page is ${overflow}px wider than the viewport`);
        const background = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
        const brightness = (background.match(/\d+/g) ?? [])
          .slice(0, 3)
          .reduce((sum, n) => sum + Number(n), 0);
        assert.ok(
          scheme === "dark" ? brightness < 150 : brightness > 600,
          `${scheme} background ${background}`,
        );
        await page.screenshot({ path: `${OUTPUT}stats-${width}-${scheme}.png`, fullPage: true });
        assert.deepEqual(await accessibilityProblems(page), [], "the dashboard: accessibility");
        // The chart's top value stays in sight beside or below its Days and Weeks, which share a
        // line with the legend on a phone over four weeks.
        for (const range of ["from=2026-03-01&to=2026-04-06", "from=2026-03-10&to=2026-04-06"]) {
          await page.goto(`${base}/${FIXTURE_DOMAIN}?${range}`);
          const units = await page.locator(".chart .units").boundingBox();
          const top = await page.locator(".chart .y-axis span:last-child").boundingBox();
          assert.ok(units && top, "the chart has its units and its scale");
          const apart =
            top.x >= units.x + units.width ||
            units.x >= top.x + top.width ||
            top.y >= units.y + units.height ||
            units.y >= top.y + top.height;
          assert.ok(
            apart,
            `${range}: the top of the scale ${JSON.stringify(top)} is under ${JSON.stringify(units)}`,
          );
        }
        await page.goto(`${base}/${FIXTURE_DOMAIN}?from=2026-03-01&to=2026-04-06`);
        // Compared with other days, chosen in the picker: the period before is offered first.
        await page.selectOption('select[name="compare"]', "range");
        await page.click('.picker button[type="submit"]');
        await page.waitForSelector('input[name="compare_from"]');
        assert.equal(await page.inputValue('input[name="compare_from"]'), "2026-01-23");
        assert.equal(await page.inputValue('input[name="compare_to"]'), "2026-02-28");
        await page.screenshot({ path: `${OUTPUT}stats-compare-${width}-${scheme}.png`, fullPage: true });
        assert.ok(
          (await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")) <= 0,
          "the picker with the days compared scrolls sideways",
        );
        assert.deepEqual(
          await accessibilityProblems(page),
          [],
          "the picker with the days compared: accessibility",
        );
        // Filtered by the long page and by a country, then the pages in full.
        await page.click("#list-page tbody tr:first-child a.text");
        await page.click('#list-country tr[data-value="GB:United Kingdom"] a.text');
        await page.waitForSelector(".chip:nth-child(2)");
        await page.screenshot({ path: `${OUTPUT}stats-filtered-${width}-${scheme}.png`, fullPage: true });
        await page.click(".chip:first-child .chip-remove");
        await page.waitForSelector(".chip:only-child");
        await page.click("#list-page .more a");
        await page.waitForSelector("#details-page");
        await page.screenshot({ path: `${OUTPUT}stats-details-${width}-${scheme}.png`, fullPage: true });
        for (const view of ["filtered", "details"]) {
          assert.ok(
            (await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")) <= 0,
            `the ${view} view scrolls sideways`,
          );
        }
        assert.deepEqual(await accessibilityProblems(page), [], "the list in full: accessibility");
        assert.deepEqual(violations, []);
        await context.close();
      });
    }
  }
});
