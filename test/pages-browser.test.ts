// A password-protected stats page in a real browser (Debian Chromium): the visitor signs in
// through the form, sees the fixture's numbers, narrows the range with the picker, and the
// page breaks no rule of its own Content-Security-Policy. Screenshots at phone and desktop
// widths, light and dark, are saved under test-output/pages/ for a person to look at. A form
// that another website posts to the page is refused and changes nothing.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { ManualClock } from "../src/clock.js";
import { chromiumMissing, launchChromium, watchPolicy } from "./support/browser.js";
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

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-04-10T12:00:00Z"));
    const key = await t.createUser();
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
        await page.goto(`${base}/${FIXTURE_DOMAIN}?from=2026-03-28&to=2026-04-06`);
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
        assert.deepEqual(violations, []);
        await context.close();
      });
    }
  }
});
