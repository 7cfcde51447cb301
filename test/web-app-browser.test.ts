// The web app in a real browser (Debian Chromium): a fresh server's setup with its code, the
// API key shown once, sign-out, a wrong then a right password, a password change, and a
// website added through its form, changed and deleted after a confirmation. Every page is checked by axe-core (no serious or critical violation),
// for sideways scrolling and for breaches of its Content-Security-Policy; screenshots at
// phone and desktop widths, light and dark, with a long domain, are saved under
// test-output/web/ for a person to look at.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { ManualClock } from "../src/clock.js";
import {
  accessibilityProblems,
  chromiumMissing,
  DESKTOP_CHROME_UA,
  launchChromium,
  watchPolicy,
} from "./support/browser.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const EMAIL = "owner@browser.example";
const PASSWORD = "a long enough passphrase";
/** 63-character labels: the longest a domain may have, which must wrap, not widen the page. */
const LONG_DOMAIN = `${"a".repeat(63)}.${"b".repeat(63)}.example`;
/** A website whose page, served by the test, embeds the snippet the web app gives. */
const SHOP = "first-hit.test";
/** Another website, whose page posts a form to the web app as soon as it loads. */
const ATTACKER = "attacker.test";
const OUTPUT = fileURLToPath(new URL("../../test-output/web/", import.meta.url));
const missing = chromiumMissing();
if (missing) console.log(`# SKIPPED web-app-browser tests: ${missing}`);

describe("web app accounts in a real browser", { skip: missing ?? false }, () => {
  let t: TestApp;
  let browser: Browser;
  let base = "";

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-06-01T12:00:00Z"));
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // The tracked test page's host resolves here; a desktop user agent, as HeadlessChrome is a bot.
    browser = await launchChromium([SHOP, ATTACKER], DESKTOP_CHROME_UA);
    fs.mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Checks the page as it is (no sideways scrolling, axe-core) and saves its screenshot. */
  async function look(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${OUTPUT}${name}.png`, fullPage: true });
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(overflow <= 0, `${name} is ${overflow}px wider than the viewport`);
    assert.deepEqual(await accessibilityProblems(page), [], `${name}: accessibility`);
  }

  it("sets up the first user with the server's code and shows their API key once", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/`);
    assert.equal(new URL(page.url()).pathname, "/setup", "a fresh server leads to its setup");
    await look(page, "setup-1280-light");

    await page.fill("#f-code", "WRONG-CODE");
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector("#f-code-error");
    assert.match(await page.innerText("#f-code-error"), /The setup code is wrong\./);
    assert.equal(await page.getAttribute("#f-code", "aria-invalid"), "true");
    assert.equal(await page.inputValue("#f-email"), EMAIL, "the email is kept");
    await look(page, "setup-error-1280-light");

    await page.fill("#f-code", t.container.setupCode ?? "");
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".key code");
    const key = await page.innerText(".key code");
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: LONG_DOMAIN, privacy: "0" },
    });
    assert.equal(created.statusCode, 201, created.body);
    await page.goto(`${base}/`);
    assert.equal(await page.locator(".key").count(), 0, "the key is shown only once");
    assert.equal(await page.locator(".sites .site-name").count(), 1);
    const cookies = await context.cookies();
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0]?.httpOnly, true);
    assert.equal(cookies[0]?.sameSite, "Lax");
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("signs out, refuses a wrong password, signs in and changes the password", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/sign-in`);
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", "not the password");
    await page.click('button[type="submit"]');
    await page.waitForSelector(".error");
    assert.match(await page.innerText(".error"), /Wrong email or password\./);
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".sites");

    await page.click('a[href="/account/password"]');
    await page.fill("#f-current_password", PASSWORD);
    await page.fill("#f-new_password", "short");
    await page.click('form:has(#f-new_password) button[type="submit"]');
    await page.waitForSelector("#f-new_password-error");
    await look(page, "password-error-1280-light");
    await page.fill("#f-current_password", PASSWORD);
    await page.fill("#f-new_password", `${PASSWORD} renewed`);
    await page.click('form:has(#f-new_password) button[type="submit"]');
    await page.waitForSelector(".notice");
    assert.match(await page.innerText(".notice"), /Password changed\./);

    await page.click('form.signout button[type="submit"]');
    await page.waitForSelector("#f-email");
    assert.equal(new URL(page.url()).pathname, "/sign-in");
    assert.deepEqual(await context.cookies(), [], "signed out");
    // Back to the first password, for the screenshots below.
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", `${PASSWORD} renewed`);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".sites");
    await page.click('a[href="/account/password"]');
    await page.fill("#f-current_password", `${PASSWORD} renewed`);
    await page.fill("#f-new_password", PASSWORD);
    await page.click('form:has(#f-new_password) button[type="submit"]');
    await page.waitForSelector(".notice");
    assert.deepEqual(violations, []);
    await context.close();
  });

  /** A new browser context at `width` px, signed in as the owner, on the websites list. */
  async function signedInPage(width: number, height: number) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/sign-in`);
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".sites");
    return { context, page, violations };
  }

  it("adds a website through its form, changes a setting and deletes it after confirming", async () => {
    const { context, page, violations } = await signedInPage(1280, 900);
    await page.click("a.button[href='/websites/new']");
    await page.fill("#f-domain", "https://www.Browser-Added.example/");
    await page.selectOption("#f-timezone", "America/New_York");
    await page.click('form:has(#f-domain) button[type="submit"]');
    await page.waitForSelector("#snippet");
    assert.match(await page.innerText(".notice"), /Website added\./);
    assert.match(
      await page.inputValue("#snippet"),
      new RegExp(`src="${base}/js/script.js" data-host="${base}"`),
    );
    assert.equal(await page.inputValue("#f-timezone"), "America/New_York");
    await page.check("#f-email");
    await page.click('form:has(#f-email) button[type="submit"]');
    await page.waitForURL(/\?saved=1$/);
    assert.match(await page.innerText(".notice"), /Settings saved\./);
    assert.equal(await page.isChecked("#f-email"), true);
    await page.click("a.danger");
    await page.waitForSelector("button.danger");
    await look(page, "website-delete-1280-light");
    await page.click("button.danger");
    await page.waitForSelector(".sites");
    assert.doesNotMatch(await page.innerText(".sites"), /browser-added/);
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("shows a long wrong line of the website form beside its field, within a phone's width", async () => {
    const { context, page, violations } = await signedInPage(390, 844);
    await page.goto(`${base}/websites/new`);
    await page.fill("#f-domain", "long-lines.example");
    // A pasted URL and a long number: each message quotes the line, one word of 60 characters.
    await page.fill("#f-exclude_params", `https://long-lines.example/${"path".repeat(20)}?utm_source=mail`);
    await page.fill("#f-exclude_ips", "9".repeat(80));
    await page.click('form:has(#f-domain) button[type="submit"]');
    await page.waitForSelector("#f-exclude_ips-error");
    assert.match(await page.innerText("#f-exclude_params-error"), /is not a valid query parameter name/);
    await look(page, "website-form-errors-390-light");
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("puts the snippet in a page, then sees the first hit in the installation check and on the dashboard", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/sign-in`);
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.click("a.button[href='/websites/new']");
    await page.fill("#f-domain", SHOP);
    await page.click('form:has(#f-domain) button[type="submit"]');
    await page.waitForSelector("#snippet");
    assert.match(await page.innerText(".install"), /No pageview in the last 30 minutes/);
    const snippet = await page.inputValue("#snippet");
    const shop = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html><head><title>Shop</title>${snippet}</head><body><h1>Shop</h1></body></html>`,
      );
    });
    await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
    try {
      const visitor = await context.newPage();
      await visitor.goto(`http://${SHOP}:${(shop.address() as AddressInfo).port}/`);
      // The hit travels by beacon; the check reads the write buffer too, so a reload shows it.
      let check = "";
      for (let i = 0; i < 50 && !/Receiving hits/.test(check); i++) {
        await page.reload();
        check = await page.innerText(".install");
      }
      assert.match(check, /Receiving hits: 1 pageview in the last 30 minutes/);
      await page.click('a[href$="/stats"]');
      await page.waitForSelector("#list-page");
      assert.equal(await page.getAttribute(".now", "data-now-visitors"), "1");
      assert.equal(await page.locator('#list-page tr[data-value="/"] td.count').textContent(), "1");
      assert.equal(await page.locator('[data-total="visitors"] .value').textContent(), "1");
      await look(page, "dashboard-first-hit-1280-light");
    } finally {
      await new Promise((resolve) => shop.close(resolve));
    }
    assert.deepEqual(violations, []);
    await context.close();
  });

  it("ignores a form another website posts, and manages keys and users through their pages", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations = watchPolicy(page);
    await page.goto(`${base}/sign-in`);
    await page.fill("#f-email", EMAIL);
    await page.fill("#f-password", PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".sites");

    // Signed in, the owner opens another website's page, which posts a key form to ours.
    const attacker = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><form id="f" method="post" action="${base}/account/keys"><input name="name" value="stolen"><input name="access" value="full"></form><script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    try {
      const posted = page.waitForResponse((response) => response.request().method() === "POST");
      await page.goto(`http://${ATTACKER}:${(attacker.address() as AddressInfo).port}/`);
      // SameSite=Lax keeps the sign-in's cookie off a cross-site post, so it comes as a
      // stranger's (the form token and origin checks stand behind that: web-account.test.ts).
      const answer = await posted;
      assert.equal(answer.status(), 303);
      assert.equal(await answer.headerValue("location"), "/sign-in");
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }

    // A read-only key: shown once, reads, cannot write, then revoked.
    await page.goto(`${base}/account/keys`);
    assert.doesNotMatch(await page.innerText(".keys"), /stolen/);
    await page.fill("#f-name", "Wall display");
    await page.check("#f-access-read");
    await page.click('form:has(#f-name) button[type="submit"]');
    const key = (await page.textContent(".key code"))?.trim() ?? "";
    const api = (method: string, path: string) =>
      fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    assert.equal(await api("GET", "/api/v1/websites"), 200);
    assert.equal(await api("DELETE", "/api/v1/websites/1"), 403);
    // Revoking asks first; keeping it changes nothing.
    await page.click('a[aria-label="Revoke Wall display"]');
    await page.click("text=Keep it");
    assert.equal(await api("GET", "/api/v1/websites"), 200);
    await page.click('a[aria-label="Revoke Wall display"]');
    await page.click('button:has-text("Revoke it")');
    await page.waitForSelector(".notice");
    assert.equal(await api("GET", "/api/v1/websites"), 401);

    // An administrator makes a user, whose key works until the user is disabled.
    await page.goto(`${base}/users`);
    await page.fill("#f-email", "temp@browser.example");
    await page.click('form:has(#f-email) button[type="submit"]');
    const theirs = (await page.textContent(".key code"))?.trim() ?? "";
    const asThem = () =>
      fetch(`${base}/api/v1/websites`, { headers: { authorization: `Bearer ${theirs}` } }).then(
        (r) => r.status,
      );
    assert.equal(await asThem(), 200);
    await page.click('button[aria-label="Disable temp@browser.example"]');
    await page.waitForSelector('button[aria-label="Enable temp@browser.example"]');
    assert.equal(await asThem(), 401);
    assert.deepEqual(
      violations.filter((text) => !text.includes(ATTACKER)),
      [],
    );
    await context.close();
  });

  for (const width of [390, 1280]) {
    for (const scheme of ["light", "dark"] as const) {
      it(`renders every page at ${width}px in ${scheme} mode (screenshots, accessibility)`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          colorScheme: scheme,
          deviceScaleFactor: width < 600 ? 2 : 1,
        });
        const page = await context.newPage();
        const violations = watchPolicy(page);
        await page.goto(`${base}/sign-in`);
        await page.fill("#f-email", EMAIL);
        await page.fill("#f-password", "wrong, to show the error");
        await page.click('button[type="submit"]');
        await page.waitForSelector(".error");
        await look(page, `sign-in-${width}-${scheme}`);
        await page.fill("#f-password", PASSWORD);
        await page.click('button[type="submit"]');
        await page.waitForSelector(".sites");
        await look(page, `home-${width}-${scheme}`);
        await page.click('a[href="/account/password"]');
        await page.waitForSelector("#f-current_password");
        await look(page, `password-${width}-${scheme}`);
        await page.goto(`${base}/websites/new`);
        await page.fill("#f-domain", "not a domain");
        await page.check("#f-privacy-2");
        await page.click('form:has(#f-domain) button[type="submit"]');
        await page.waitForSelector("#f-domain-error");
        await look(page, `website-new-error-${width}-${scheme}`);
        await page.goto(`${base}/`);
        await page.locator(".sites a.site-name", { hasText: LONG_DOMAIN.slice(0, 30) }).click();
        await page.waitForSelector("#list-page");
        await look(page, `dashboard-${width}-${scheme}`);
        await page.click(".owner-links a:last-child");
        await page.waitForSelector("#snippet");
        await look(page, `website-${width}-${scheme}`);
        // The whole snippet shows, however it wraps: nothing to scroll inside its box.
        const snippetBox = await page.$eval("#snippet", (box) => [box.scrollHeight, box.clientHeight]);
        assert.ok((snippetBox[0] ?? 0) <= (snippetBox[1] ?? 0), `the snippet fits its box: ${snippetBox}`);
        await page.click('a[href="/account/keys"]');
        await page.fill("#f-name", `Dashboard on the office wall ${width} ${scheme} ${"x".repeat(60)}`);
        await page.check("#f-access-read");
        await page.click('form:has(#f-name) button[type="submit"]');
        await page.waitForSelector(".key code");
        await look(page, `keys-${width}-${scheme}`);
        await page.click('a[href="/users"]');
        await page.fill(
          "#f-email",
          `someone-with-a-long-address-${width}-${scheme}@${"sub.".repeat(8)}example`,
        );
        await page.click('form:has(#f-email) button[type="submit"]');
        await page.waitForSelector(".key code");
        await page.click(".sites li:last-child details summary").catch(() => undefined);
        await look(page, `users-${width}-${scheme}`);
        assert.deepEqual(violations, []);
        await context.close();
      });
    }
  }
});
