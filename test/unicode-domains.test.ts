// Internationalised domains: stored and looked up in ASCII (punycode), shown to people in
// Unicode: the stats page and the password page, the email report.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { lastFullPeriod } from "../src/reports/report-period.js";
import { createReportSender } from "../src/reports/report-sender.js";
import { unicodeDomain } from "../src/unicode-domain.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const ASCII = "xn--mnchen-3ya.de";
const UNICODE = "münchen.de";

describe("unicodeDomain", () => {
  it("decodes punycode labels and leaves everything else as it is", () => {
    assert.equal(unicodeDomain(ASCII), UNICODE);
    assert.equal(unicodeDomain("xn--bcher-kva.example"), "bücher.example");
    assert.equal(unicodeDomain("example.com"), "example.com");
    assert.equal(unicodeDomain("192.0.2.1"), "192.0.2.1");
    assert.equal(unicodeDomain("xn--zz.example"), "xn--zz.example", "not punycode: only its ASCII name");
  });
});

describe("internationalised domains shown in Unicode", () => {
  const clock = new ManualClock("2026-04-13T06:00:00Z");
  let t: TestApp;
  let key: string;
  let _id: number;

  before(async () => {
    t = await createTestApp({ ANALYTICS_PUBLIC_URL: "https://stats.example.org" }, clock);
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "https://MÜNCHEN.de/", privacy: "0", email: "1" },
    });
    assert.equal(created.statusCode, 201, created.body);
    _id = created.json().data.id;
    const locked = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "bücher.example", privacy: "2", password: "open sesame" },
    });
    assert.equal(locked.statusCode, 201, locked.body);
  });
  after(() => t.close());

  it("heads the stats page with the Unicode name and keeps ASCII in its addresses", async () => {
    const page = await t.app.inject({ url: `/${ASCII}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>münchen\.de: statistics<\/title>/);
    assert.match(page.body, /<h1><small>Statistics of<\/small>münchen\.de<\/h1>/);
    assert.match(page.body, /<form class="picker" method="get" action="\/xn--mnchen-3ya\.de">/);
    // Typed in Unicode, the address leads to the ASCII one, the page's only address.
    const typed = await t.app.inject({ url: `/${encodeURIComponent(UNICODE)}` });
    assert.equal(typed.statusCode, 301);
    assert.equal(typed.headers.location, `/${ASCII}`);
  });

  it("names the website in Unicode on its password page", async () => {
    const page = await t.app.inject({ url: "/xn--bcher-kva.example" });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>bücher\.example: statistics<\/title>/);
    assert.match(page.body, /<h1>bücher\.example<\/h1>/);
    assert.match(page.body, /action="\/xn--bcher-kva\.example"/);
  });

  it("names the website in Unicode in the email report, linking to the ASCII address", async () => {
    const sender = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const [mail] = await sender.preview(lastFullPeriod("week", clock.now()));
    assert.ok(mail);
    const lines = mail.text.split("\n");
    assert.ok(lines.includes(UNICODE), mail.text);
    assert.ok(lines.includes(`  Statistics: https://stats.example.org/${ASCII}`), mail.text);
    assert.doesNotMatch(mail.text.replace(`https://stats.example.org/${ASCII}`, ""), /xn--/);
    assert.match(mail.html, /<a href="https:\/\/stats\.example\.org\/xn--mnchen-3ya\.de">münchen\.de<\/a>/);
    assert.match(mail.html, />All statistics of münchen\.de</);
    assert.doesNotMatch(mail.html.replaceAll(`https://stats.example.org/${ASCII}`, ""), /xn--/);
    assert.doesNotMatch(mail.subject, /xn--/);
  });
});
