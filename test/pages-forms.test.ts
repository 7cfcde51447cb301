// Cross-site form posts to a stats page are refused (403) before they do anything: no
// sign-in, no sign-out, no wrong attempt counted. Posts from the page itself, and from
// clients that say nothing about where they come from (curl), work.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { ACCESS_COOKIE } from "../src/pages/access-cookie.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const PASSWORD = "open sesame";
const HOST = "stats.example.org";

async function withSite(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp(env);
  const key = await t.createUser();
  const created = await t.call(key, {
    method: "POST",
    url: "/api/v1/websites",
    form: { domain: "secret.example", privacy: "2", password: PASSWORD },
  });
  assert.equal(created.statusCode, 201, created.body);
  return t;
}

function post(
  t: TestApp,
  fields: Record<string, string>,
  headers: Record<string, string>,
  remoteAddress = "198.51.100.5",
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: "POST",
    url: "/secret.example",
    remoteAddress,
    headers: { host: HOST, "content-type": "application/x-www-form-urlencoded", ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const CROSS_SITE: Record<string, string>[] = [
  { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
  { origin: "https://evil.example" },
  { origin: "null" },
  { origin: `https://${HOST}` }, // the right host, the wrong scheme
  { origin: `http://${HOST}:8080` },
  { "sec-fetch-site": "cross-site" },
  { "sec-fetch-site": "same-site", origin: `http://${HOST}` },
  { referer: "https://evil.example/page" },
];

const SAME_ORIGIN: Record<string, string>[] = [
  { origin: `http://${HOST}`, "sec-fetch-site": "same-origin" },
  { origin: `http://${HOST}` },
  { origin: "null", "sec-fetch-site": "same-origin" },
  { "sec-fetch-site": "none" },
  { referer: `http://${HOST}/secret.example?from=2026-01-01&to=2026-01-31` },
  {}, // curl and other tools say nothing
];

describe("cross-site posts to a stats page", () => {
  let t: TestApp;
  before(async () => {
    t = await withSite({});
  });
  after(() => t?.close());

  it("refuses them with 403 and the page's error view, setting and clearing no cookie", async () => {
    for (const headers of CROSS_SITE) {
      const attempts: Record<string, string>[] = [
        { password: PASSWORD },
        { sign_out: "1" },
        { password: "wrong" },
      ];
      for (const fields of attempts) {
        const response = await post(t, fields, headers);
        const shown = `${JSON.stringify(headers)} ${JSON.stringify(fields)}`;
        assert.equal(response.statusCode, 403, shown);
        assert.equal(response.headers["set-cookie"], undefined, shown);
        assert.equal(response.headers["content-type"], "text/html; charset=utf-8");
        assert.ok(response.body.includes("sent from another website"), shown);
        assert.ok(String(response.headers["content-security-policy"]).includes("form-action 'self'"));
      }
    }
  });

  it("counts no wrong attempt for them: the address is not locked out", async () => {
    const victim = "198.51.100.77";
    for (let i = 0; i < 20; i++) {
      const response = await post(t, { password: `wrong ${i}` }, { origin: "https://evil.example" }, victim);
      assert.equal(response.statusCode, 403);
    }
    const own = await post(t, { password: PASSWORD }, { origin: `http://${HOST}` }, victim);
    assert.equal(own.statusCode, 303);
    assert.match(String(own.headers["set-cookie"]), new RegExp(`^${ACCESS_COOKIE}=[^;]+;`));
  });

  it("accepts posts from the page itself, and from clients that send none of the headers", async () => {
    for (const headers of SAME_ORIGIN) {
      const signIn = await post(t, { password: PASSWORD }, headers);
      assert.equal(signIn.statusCode, 303, JSON.stringify(headers));
      const signOut = await post(t, { sign_out: "1" }, headers);
      assert.equal(signOut.statusCode, 303, JSON.stringify(headers));
      assert.match(String(signOut.headers["set-cookie"]), /Max-Age=0/);
    }
  });
});

describe("the origin forms may come from", () => {
  it("is also ANALYTICS_PUBLIC_URL's when it is set", async () => {
    const t = await withSite({ ANALYTICS_PUBLIC_URL: "https://analytics.example.net/" });
    try {
      const response = await post(t, { password: PASSWORD }, { origin: "https://analytics.example.net" });
      assert.equal(response.statusCode, 303);
      assert.equal((await post(t, { password: PASSWORD }, { origin: `http://${HOST}` })).statusCode, 303);
      assert.equal(
        (await post(t, { password: PASSWORD }, { origin: "https://evil.example" })).statusCode,
        403,
      );
    } finally {
      await t.close();
    }
  });

  it("is read from X-Forwarded-Proto and -Host only when they come from a trusted proxy", async () => {
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "public.example.org" };
    const headers = { ...forwarded, origin: "https://public.example.org" };
    const trusted = await withSite({ ANALYTICS_TRUST_PROXY: "10.0.0.0/8" });
    try {
      const fromProxy = await post(trusted, { password: PASSWORD }, headers, "10.0.0.2");
      assert.equal(fromProxy.statusCode, 303);
      assert.match(String(fromProxy.headers["set-cookie"]), /; Secure/, "the proxy said HTTPS");
      const direct = await post(trusted, { password: PASSWORD }, headers, "198.51.100.8");
      assert.equal(direct.statusCode, 403, "a client talking directly cannot claim another origin");
    } finally {
      await trusted.close();
    }
  });
});
