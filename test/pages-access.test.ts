// Who sees a stats page (CONTRACT.md section 6): public pages for anyone; private ones only
// for the owner signed in with their API key, a 404 like an unknown website for everyone
// else; password pages behind a form. Cookies: scoped, signed, bound to one website and to
// the current password or key, so tampering, reuse elsewhere, a password change, a key
// rotation and expiry all end them. Wrong attempts are rate limited. /{domain} shadows none
// of the application's other routes.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import type { LightMyRequestResponse } from "fastify";
import { ManualClock } from "../src/clock.js";
import { ACCESS_COOKIE } from "../src/pages/access-cookie.js";
import { SESSION_SECONDS } from "../src/pages/page-access.js";
import { ATTEMPT_WINDOW_MS, MAX_WRONG_ATTEMPTS } from "../src/sign-in/attempt-limiter.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const OWNER_EMAIL = "owner@pages.example";
const PASSWORD = "open sesame";

describe("stats page access", () => {
  let t: TestApp;
  let clock: ManualClock;
  let ownerKey: string;
  let strangerKey: string;
  let nextIp = 1;
  /** A fresh client address, so one test's wrong attempts never limit another's. */
  const freshIp = () => `198.51.100.${nextIp++}`;

  before(async () => {
    clock = new ManualClock("2026-04-10T12:00:00Z");
    t = await createTestApp({}, clock);
    ownerKey = await t.createUser(OWNER_EMAIL);
    strangerKey = await t.createUser("stranger@pages.example");
    const sites: Record<string, string>[] = [
      { domain: "public.example", privacy: "0" },
      { domain: "private.example", privacy: "1" },
      { domain: "private-two.example", privacy: "1" },
      { domain: "secret.example", privacy: "2", password: PASSWORD },
      { domain: "other-secret.example", privacy: "2", password: PASSWORD },
      { domain: "changing.example", privacy: "2", password: PASSWORD },
      { domain: "limited.example", privacy: "2", password: PASSWORD },
    ];
    for (const form of sites) {
      const created = await t.call(ownerKey, { method: "POST", url: "/api/v1/websites", form });
      assert.equal(created.statusCode, 201, created.body);
    }
  });

  after(async () => {
    await t?.close();
  });

  function get(url: string, cookie?: string, ip = freshIp()): Promise<LightMyRequestResponse> {
    return t.app.inject({
      url,
      remoteAddress: ip,
      headers: cookie === undefined ? {} : { cookie: `${ACCESS_COOKIE}=${cookie}` },
    });
  }

  function post(domain: string, fields: Record<string, string>, ip = freshIp()) {
    return t.app.inject({
      method: "POST",
      url: `/${domain}`,
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  /** The access cookie a response sets, with its attributes. */
  function setCookie(response: LightMyRequestResponse): { value: string; attributes: string[] } {
    const header = response.headers["set-cookie"];
    assert.ok(typeof header === "string", `expected one Set-Cookie, got ${JSON.stringify(header)}`);
    const [pair = "", ...attributes] = header.split(";").map((part) => part.trim());
    assert.ok(pair.startsWith(`${ACCESS_COOKIE}=`), header);
    return { value: pair.slice(ACCESS_COOKIE.length + 1), attributes };
  }

  async function signIn(domain: string, fields: Record<string, string>): Promise<string> {
    const response = await post(domain, fields);
    assert.equal(response.statusCode, 303, response.body);
    return setCookie(response).value;
  }

  const isStats = (response: LightMyRequestResponse) =>
    response.statusCode === 200 && response.body.includes('data-total="visitors"');
  const isPasswordForm = (response: LightMyRequestResponse) =>
    response.statusCode === 200 && response.body.includes('name="password"') && !isStats(response);

  it("shows a public page to anyone, with the security headers", async () => {
    const response = await get("/public.example");
    assert.ok(isStats(response));
    assert.equal(response.headers["content-type"], "text/html; charset=utf-8");
    const csp = String(response.headers["content-security-policy"]);
    for (const directive of [
      "default-src 'none'",
      "style-src 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]) {
      assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.ok(!csp.includes("unsafe-inline"));
    assert.equal(response.headers["referrer-policy"], "same-origin");
    assert.equal(response.headers["x-content-type-options"], "nosniff");
    assert.ok(!/<script/i.test(response.body), "the page runs no script");
    assert.ok(!/ style=/i.test(response.body), "no inline style (the CSP would block it)");
  });

  it("compresses pages for clients that accept gzip", async () => {
    const plain = await get("/public.example");
    const compressed = await t.app.inject({
      url: "/public.example",
      headers: { "accept-encoding": "gzip, br" },
    });
    assert.equal(compressed.statusCode, 200);
    assert.equal(compressed.headers["content-encoding"], "gzip");
    assert.ok(compressed.rawPayload.length < plain.rawPayload.length / 4);
    assert.equal(gunzipSync(compressed.rawPayload).toString(), plain.body);
  });

  it("answers a private page exactly like an unknown website: 404", async () => {
    const hidden = await get("/private.example");
    const unknown = await get("/nobody-here.example");
    assert.equal(hidden.statusCode, 404);
    assert.equal(unknown.statusCode, 404);
    assert.equal(
      hidden.body.replaceAll("private.example", "X"),
      unknown.body.replaceAll("nobody-here.example", "X"),
    );
    assert.deepEqual(Object.keys(hidden.headers).sort(), Object.keys(unknown.headers).sort());
    assert.ok(!hidden.body.includes('data-total="visitors"'));
  });

  it("opens a private page to its owner's key, with a scoped HttpOnly SameSite=Lax cookie", async () => {
    const response = await post("private.example", { key: ownerKey, from: "2026-04-01", to: "2026-04-03" });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, "/private.example?from=2026-04-01&to=2026-04-03");
    const cookie = setCookie(response);
    assert.ok(cookie.attributes.includes("HttpOnly"));
    assert.ok(cookie.attributes.includes("SameSite=Lax"));
    assert.ok(cookie.attributes.includes("Path=/private.example"));
    assert.ok(cookie.attributes.includes(`Max-Age=${SESSION_SECONDS}`));
    assert.ok(!cookie.value.includes(ownerKey.slice(19)), "the key's secret is not in the cookie");
    assert.ok(isStats(await get("/private.example?from=2026-04-01&to=2026-04-03", cookie.value)));
  });

  it("refuses a private page to another user's key, a wrong key, a password and nothing: 404", async () => {
    const attempts: Record<string, string>[] = [
      { key: strangerKey },
      { key: `${ownerKey.slice(0, -1)}x` },
      { key: "not a key" },
      { password: PASSWORD },
      {},
    ];
    for (const fields of attempts) {
      const response = await post("private.example", fields);
      assert.equal(response.statusCode, 404, JSON.stringify(fields));
      assert.equal(response.headers["set-cookie"], undefined);
    }
    // The owner's key on a website that does not exist gets the same answer.
    assert.equal((await post("nobody-here.example", { key: ownerKey })).statusCode, 404);
  });

  it("refuses tampered cookies", async () => {
    const good = await signIn("private.example", { key: ownerKey });
    const parts = good.split(".");
    const mac = parts[5] ?? "";
    const tampered = [
      [...parts.slice(0, 5), `${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`].join("."),
      [...parts.slice(0, 4), String(Number(parts[4]) + 86_400), mac].join("."),
      [parts[0], parts[1], "p", "-", parts[4], mac].join("."),
      good.slice(0, -3),
      "",
      "garbage",
    ];
    for (const cookie of tampered) {
      assert.equal((await get("/private.example", cookie)).statusCode, 404, cookie);
    }
    assert.ok(isStats(await get("/private.example", good)));
  });

  it("binds a cookie to its website: it opens no other", async () => {
    const privateCookie = await signIn("private.example", { key: ownerKey });
    assert.equal((await get("/private-two.example", privateCookie)).statusCode, 404);
    const secretCookie = await signIn("secret.example", { password: PASSWORD });
    assert.ok(isStats(await get("/secret.example", secretCookie)));
    // Same owner, same password, different website: still the form.
    assert.ok(isPasswordForm(await get("/other-secret.example", secretCookie)));
    assert.equal((await get("/private.example", secretCookie)).statusCode, 404);
  });

  it("puts a password page behind a form that the password or the owner's key opens", async () => {
    const form = await get("/secret.example?from=2026-04-01&to=2026-04-03");
    assert.ok(isPasswordForm(form));
    assert.ok(form.body.includes('action="/secret.example"'));
    assert.ok(form.body.includes('name="from" value="2026-04-01"'), "the range survives the sign-in");

    const wrong = await post("secret.example", { password: "open sesame!" });
    assert.equal(wrong.statusCode, 401);
    assert.ok(wrong.body.includes("Wrong password"));
    assert.equal(wrong.headers["set-cookie"], undefined);
    assert.equal((await post("secret.example", { key: strangerKey })).statusCode, 401);

    assert.ok(isStats(await get("/secret.example", await signIn("secret.example", { password: PASSWORD }))));
    assert.ok(isStats(await get("/secret.example", await signIn("secret.example", { key: ownerKey }))));

    // The password sent twice (even the right one) is said beside the form, and opens nothing.
    const twice = await t.app.inject({
      method: "POST",
      url: "/secret.example",
      remoteAddress: freshIp(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams([
        ["password", PASSWORD],
        ["password", PASSWORD],
      ]).toString(),
    });
    assert.equal(twice.statusCode, 422, twice.body.slice(0, 300));
    assert.ok(twice.body.includes('name="password"') && !isStats(twice), "the password form again");
    assert.match(twice.body, /The password must be given once, not 2 times\./);
    assert.equal(twice.headers["set-cookie"], undefined);
  });

  it("ends every earlier cookie when the password changes or privacy leaves 2", async () => {
    const before = await signIn("changing.example", { password: PASSWORD });
    assert.ok(isStats(await get("/changing.example", before)));
    const id = (await t.container.metadata.websites.findByDomain("changing.example"))?.id;
    const changed = await t.call(ownerKey, {
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      form: { password: "new one" },
    });
    assert.equal(changed.statusCode, 200);
    assert.ok(isPasswordForm(await get("/changing.example", before)));
    assert.equal((await post("changing.example", { password: PASSWORD })).statusCode, 401);
    const after = await signIn("changing.example", { password: "new one" });
    assert.ok(isStats(await get("/changing.example", after)));

    // A password opens only a password page: made private, the website hides again.
    await t.call(ownerKey, { method: "PUT", url: `/api/v1/websites/${id}`, form: { privacy: "1" } });
    assert.equal((await get("/changing.example", after)).statusCode, 404);
  });

  it("keeps a password cookie ended after privacy 2 -> 1 -> 2 with the same password; the owner's key cookie lives on", async () => {
    const created = await t.call(ownerKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "returning.example", privacy: "2", password: PASSWORD },
    });
    assert.equal(created.statusCode, 201);
    const id = created.json().data.id;
    const setPrivacy = async (privacy: string) => {
      const response = await t.call(ownerKey, {
        method: "PUT",
        url: `/api/v1/websites/${id}`,
        form: { privacy },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().data.password, true, "the stored password is kept");
    };
    const password = await signIn("returning.example", { password: PASSWORD });
    const owner = await signIn("returning.example", { key: ownerKey });
    assert.ok(isStats(await get("/returning.example", password)));

    await setPrivacy("1");
    assert.equal((await get("/returning.example", password)).statusCode, 404);
    assert.ok(isStats(await get("/returning.example", owner)), "the owner's key still opens a private page");
    await setPrivacy("2"); // back, without sending a password: the old one is in use again
    assert.ok(
      isPasswordForm(await get("/returning.example", password)),
      "the earlier password cookie stays ended",
    );
    assert.ok(
      isStats(await get("/returning.example", owner)),
      "the owner's key cookie outlives privacy changes",
    );

    // The password still works for a new sign-in, whose cookie ends the same way through privacy 0.
    const again = await signIn("returning.example", { password: PASSWORD });
    assert.ok(isStats(await get("/returning.example", again)));
    await setPrivacy("0");
    await setPrivacy("2");
    assert.ok(isPasswordForm(await get("/returning.example", again)));
    assert.ok(
      isStats(await get("/returning.example", await signIn("returning.example", { password: PASSWORD }))),
    );
    // Changes that keep privacy 2 end nothing.
    const kept = await signIn("returning.example", { password: PASSWORD });
    await setPrivacy("2");
    assert.ok(isStats(await get("/returning.example", kept)));
  });

  it("ends an owner's cookie when their key is rotated, and every cookie when it expires", async () => {
    const user = await t.container.users.create({ email: "rotating@pages.example" });
    const created = await t.call(user.apiKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "rotating.example", privacy: "1" },
    });
    assert.equal(created.statusCode, 201);
    const cookie = await signIn("rotating.example", { key: user.apiKey });
    assert.ok(isStats(await get("/rotating.example", cookie)));
    const rotated = await t.container.users.rotateKey("rotating@pages.example");
    assert.equal((await get("/rotating.example", cookie)).statusCode, 404);
    const fresh = await signIn("rotating.example", { key: rotated.apiKey });
    assert.ok(isStats(await get("/rotating.example", fresh)));

    const password = await signIn("secret.example", { password: PASSWORD });
    clock.advance(SESSION_SECONDS * 1000 - 1000);
    assert.ok(isStats(await get("/rotating.example", fresh)));
    assert.ok(isStats(await get("/secret.example", password)));
    clock.advance(2000);
    assert.equal((await get("/rotating.example", fresh)).statusCode, 404);
    assert.ok(isPasswordForm(await get("/secret.example", password)));
  });

  it("signs out by clearing the cookie", async () => {
    const response = await post("secret.example", { sign_out: "1" });
    assert.equal(response.statusCode, 303);
    const cleared = setCookie(response);
    assert.equal(cleared.value, "");
    assert.ok(cleared.attributes.includes("Max-Age=0"));
    assert.ok(cleared.attributes.includes("Path=/secret.example"));
  });

  it(`limits wrong attempts to ${MAX_WRONG_ATTEMPTS} per address and website in ${ATTEMPT_WINDOW_MS / 60_000} minutes`, async () => {
    const attacker = freshIp();
    for (let i = 0; i < MAX_WRONG_ATTEMPTS; i++) {
      assert.equal((await post("limited.example", { password: `guess ${i}` }, attacker)).statusCode, 401);
    }
    const limited = await post("limited.example", { password: "guess again" }, attacker);
    assert.equal(limited.statusCode, 429);
    const retryAfter = Number(limited.headers["retry-after"]);
    assert.ok(retryAfter > 0 && retryAfter <= ATTEMPT_WINDOW_MS / 1000, `Retry-After ${retryAfter}`);
    assert.ok(limited.body.includes("Too many attempts"));
    assert.ok(limited.body.includes('name="password"'), "the form is still shown");
    // While limited, even the right password is refused, so guessing cannot go on.
    const right = await post("limited.example", { password: PASSWORD }, attacker);
    assert.equal(right.statusCode, 429);
    assert.equal(right.headers["set-cookie"], undefined);
    // Another address, and another website from the same address, are not affected.
    assert.equal((await post("limited.example", { password: PASSWORD })).statusCode, 303);
    assert.equal((await post("secret.example", { password: PASSWORD }, attacker)).statusCode, 303);
    clock.advance(ATTEMPT_WINDOW_MS);
    assert.equal((await post("limited.example", { password: PASSWORD }, attacker)).statusCode, 303);
  });

  it("limits wrong keys on private and unknown websites alike", async () => {
    for (const domain of ["private-two.example", "never-created.example"]) {
      const attacker = freshIp();
      for (let i = 0; i < MAX_WRONG_ATTEMPTS; i++) {
        assert.equal((await post(domain, { key: strangerKey }, attacker)).statusCode, 404);
      }
      const limited = await post(domain, { key: ownerKey }, attacker);
      assert.equal(limited.statusCode, 429, domain);
      assert.ok(Number(limited.headers["retry-after"]) > 0);
      assert.ok(!limited.body.includes('name="password"'), "a private website shows no password form");
    }
  });

  it("leaves the application's other routes alone", async () => {
    assert.equal((await get("/healthz")).statusCode, 200);
    assert.equal((await get("/api/docs")).statusCode, 200);
    assert.equal((await get("/api/docs/json")).statusCode, 200);
    assert.equal((await get("/js/script.js")).statusCode, 200);
    assert.equal((await get("/api/v1/websites")).statusCode, 401);
    for (const path of ["/api", "/assets", "/nodot"]) {
      const response = await get(path);
      assert.equal(response.statusCode, 404, path);
      assert.deepEqual(response.json(), { message: "Resource not found.", status: 404 });
    }
  });

  it("redirects to the canonical domain before looking it up", async () => {
    for (const [path, location] of [
      ["/www.public.example?from=2026-04-01", "/public.example?from=2026-04-01"],
      ["/Public.Example", "/public.example"],
      ["/www.nobody-here.example", "/nobody-here.example"],
    ]) {
      const response = await get(path ?? "");
      assert.equal(response.statusCode, 301, path);
      assert.equal(response.headers.location, location);
    }
  });

  it("serves the page of a domain as long as domains go (253 characters)", async () => {
    const label = "a".repeat(63);
    const domain = `${label}.${label}.${label}.${"b".repeat(53)}.example`;
    assert.equal(domain.length, 253);
    const created = await t.call(ownerKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain, privacy: "0" },
    });
    assert.equal(created.statusCode, 201, created.body);
    const page = await get(`/${domain}`);
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(`<title>${domain}: statistics</title>`));
    const www = await get(`/www.${domain.toUpperCase()}`);
    assert.equal(www.statusCode, 301);
    assert.equal(www.headers.location, `/${domain}`);
  });

  it("serves the stylesheet with an ETag and a long cache life", async () => {
    const page = await get("/public.example");
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)?.[1] ?? "";
    assert.match(href, /^\/assets\/stats-[\w-]+\.css$/);
    const css = await get(href);
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers["content-type"], "text/css; charset=utf-8");
    assert.match(String(css.headers["cache-control"]), /immutable/);
    assert.ok(css.body.includes("prefers-color-scheme: dark"));
    const again = await t.app.inject({ url: href, headers: { "if-none-match": String(css.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal((await get("/assets/stats-nope.css")).statusCode, 404);
  });

  it("answers bad input with a clear page, never a 500", async () => {
    const badDate = await get("/public.example?from=2026-02-30&to=2026-03-01");
    assert.equal(badDate.statusCode, 422);
    assert.ok(badDate.body.includes("The from must be a real date in the format YYYY-MM-DD."));
    const reversed = await get("/public.example?from=2026-03-02&to=2026-03-01");
    assert.equal(reversed.statusCode, 422);
    assert.ok(reversed.body.includes("The to must be a date after or equal to from."));
    const tooLong = await get("/public.example?from=2020-01-01&to=2026-01-01");
    assert.equal(tooLong.statusCode, 422);
    assert.equal((await get("/public.example?from=9999-12-31")).statusCode, 422);
    const twice = await get("/public.example?from=a&from=b");
    assert.equal(twice.statusCode, 422, "a part given twice is shown at its default, said why");
    assert.ok(twice.body.includes("The from must be given once, not 2 times."));

    const twoPasswords = await t.app.inject({
      method: "POST",
      url: "/secret.example",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "password=a&password=b",
    });
    assert.equal(twoPasswords.statusCode, 422);
    assert.equal(twoPasswords.headers["content-type"], "text/html; charset=utf-8");
    const badJson = await t.app.inject({
      method: "POST",
      url: "/secret.example",
      headers: { "content-type": "application/json" },
      payload: "{",
    });
    assert.equal(badJson.statusCode, 400);
    const weird = await get("/%3Cscript%3E.example");
    assert.equal(weird.statusCode, 404);
    assert.ok(!weird.body.includes("<script>"));
  });
});
