// The API documentation page in a real browser (Debian Chromium), under the policy it is
// sent with: Swagger UI loads, reads the OpenAPI document and lists the operations, and the
// browser reports no violation of the page's Content-Security-Policy.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumMissing, launchChromium } from "./support/browser.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const missing = chromiumMissing();
if (missing) console.log(`# SKIPPED api-docs-browser tests: ${missing}`);

describe("API documentation in a real browser", { skip: missing ?? false }, () => {
  let t: TestApp;
  let browser: Browser;
  let base = "";

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium([]);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it("renders every operation with a policy in force and nothing refused", async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    const outside: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith("data:")) outside.push(request.url());
    });
    try {
      const response = await page.goto(`${base}/api/docs/`);
      assert.equal(response?.status(), 200);
      const policy = (await response?.allHeaders())?.["content-security-policy"] ?? "";
      assert.match(policy, /default-src 'none'/, "the page is sent with its policy");
      await page.waitForSelector(".opblock-summary-path", { timeout: 15_000 });
      const paths = await page.$$eval(".opblock-summary-path", (nodes) =>
        nodes.map((node) => node.getAttribute("data-path") ?? node.textContent ?? ""),
      );
      for (const path of ["/api/v1/websites", "/api/v1/websites/{id}", "/api/v1/stats/{id}"]) {
        assert.ok(
          paths.some((shown) => shown.replace(/\u200b/g, "") === path),
          `${path} listed: ${paths.join(", ")}`,
        );
      }
      // Open one operation: its parameters render from the document.
      await page.click(".opblock-summary-path >> nth=0");
      await page.waitForSelector(".opblock-body", { timeout: 15_000 });
      assert.deepEqual(refused, [], "no request or style refused by the policy");
      assert.deepEqual(outside, [], "nothing fetched from another origin");
    } finally {
      await page.close();
    }
  });
});
