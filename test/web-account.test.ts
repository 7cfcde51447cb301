// The web app's accounts: a fresh server leads to its setup page, which only the holder of
// the code the server printed can use, once; owners sign in with email and password, the
// sign-in lives in an HttpOnly cookie whose token the store keeps only hashed; signing out
// and changing the password end it on every copy; posts from other sites and forms without
// their sign-in's token are refused; wrong passwords are rate limited.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { OWNER_SESSION_SECONDS } from "../src/accounts/owner-sessions.js";
import { ManualClock } from "../src/clock.js";
import { MAX_WRONG_ATTEMPTS } from "../src/sign-in/attempt-limiter.js";
import { SESSION_COOKIE } from "../src/web/web-request.js";
import { createTestApp, type TestApp } from "./support/test-app.js";
import type { FormFields } from "./support/web-client.js";

const EMAIL = "first@owner.example";
const PASSWORD = "correct horse battery";
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };

/** The session cookie a response sets ("" when it clears it), or undefined when it sets none. */
function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  const headers = response.headers["set-cookie"];
  const all = headers === undefined ? [] : Array.isArray(headers) ? headers : [headers];
  const cookie = all.find((header) => header.startsWith(`${SESSION_COOKIE}=`));
  return cookie === undefined ? undefined : (cookie.split(";")[0] ?? "").slice(SESSION_COOKIE.length + 1);
}

/** The form token in a signed-in page. */
function formTokenOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  assert.ok(match, "the page has a form token");
  return match[1] as string;
}

describe("web app accounts", () => {
  let t: TestApp;
  let clock: ManualClock;
  let nextIp = 1;
  const freshIp = () => `203.0.113.${nextIp++}`;

  const post = (
    url: string,
    form: FormFields,
    options: { cookie?: string; ip?: string; headers?: Record<string, string> } = {},
  ) =>
    t.app.inject({
      method: "POST",
      url,
      remoteAddress: options.ip ?? freshIp(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...SAME_ORIGIN,
        ...(options.cookie ? { cookie: `${SESSION_COOKIE}=${options.cookie}` } : {}),
        ...options.headers,
      },
      payload: new URLSearchParams(form).toString(),
    });
  const get = (url: string, cookie?: string) =>
    t.app.inject({ method: "GET", url, headers: cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {} });
  const signIn = async (password = PASSWORD) => {
    const response = await post("/sign-in", { email: EMAIL, password });
    assert.equal(response.statusCode, 303, response.body);
    const cookie = sessionCookieOf(response);
    assert.ok(cookie, "signing in sets the cookie");
    return cookie;
  };

  const sessionRows = async () => {
    let count = 0;
    for await (const batch of t.container.metadata.exportRows("user_sessions")) count += batch.length;
    return count;
  };

  before(async () => {
    clock = new ManualClock("2026-06-01T12:00:00Z");
    t = await createTestApp({}, clock);
  });

  after(async () => {
    await t.close();
  });

  it("leads a fresh server to its setup page, which only the printed code opens", async () => {
    for (const url of ["/", "/sign-in"]) {
      const response = await get(url);
      assert.equal(response.statusCode, 303, url);
      assert.equal(response.headers.location, "/setup");
    }
    const page = await get("/setup");
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<form method="post" action="\/setup"/);
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'/);

    const code = t.container.setupCode;
    assert.ok(code, "a server without users has a setup code");
    const wrong = await post("/setup", { code: "AAAA-AAAA", email: EMAIL, password: PASSWORD });
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /The setup code is wrong\./);
    assert.equal(await t.container.owners.needsSetup(), true, "no user was created");
    const none = await post("/setup", { code: "  ", email: EMAIL, password: PASSWORD });
    assert.equal(none.statusCode, 403);
    assert.match(none.body, /id="f-code-error">The setup code field is required\.</);
    // A wrong code does not hide the other fields' problems: each is said beside its field.
    const wrongAndInvalid = await post("/setup", {
      code: "AAAA-AAAA",
      email: "not an email",
      name: "n".repeat(256),
      password: "short",
    });
    assert.equal(wrongAndInvalid.statusCode, 403);
    assert.match(wrongAndInvalid.body, /id="f-code-error">The setup code is wrong\.</);
    assert.match(wrongAndInvalid.body, /id="f-email-error">The email must be a valid email address\.</);
    assert.match(
      wrongAndInvalid.body,
      /id="f-name-error">The name must not be greater than 255 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    assert.match(wrongAndInvalid.body, /id="f-password-error">The password must be at least 8 characters\.</);
    assert.match(wrongAndInvalid.body, /value="not an email"/, "the email is shown again");
    assert.equal(await t.container.owners.needsSetup(), true);

    const invalid = await post("/setup", { code, email: "not an email", password: "short" });
    assert.equal(invalid.statusCode, 422);
    assert.match(invalid.body, /The email must be a valid email address\./);
    assert.match(invalid.body, /aria-invalid="true"/);
    assert.match(invalid.body, /value="not an email"/, "the email is shown again");
    assert.equal(await t.container.owners.needsSetup(), true);
    // Over-long values are said so beside their fields, every one at once, what was typed kept.
    const overLong = await post("/setup", {
      code,
      email: EMAIL,
      name: "n".repeat(256),
      password: "p".repeat(1025),
    });
    assert.equal(overLong.statusCode, 422, overLong.body.slice(0, 300));
    assert.match(
      overLong.body,
      /id="f-name-error">The name must not be greater than 255 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    assert.match(
      overLong.body,
      /id="f-password-error">The password must not be greater than 128 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    assert.match(overLong.body, /value="first@owner\.example"/);
    assert.ok(overLong.body.includes(`value="${"n".repeat(256)}"`));
    assert.match(overLong.body, /name="name" type="text" autocomplete="name" value="n+" maxlength="255"/);
    // A field sent twice (only a crafted post does) is said so beside it; nobody is created.
    const twice = await post("/setup", [
      ["code", code],
      ["email", EMAIL],
      ["email", "second@owner.example"],
      ["password", PASSWORD],
    ]);
    assert.equal(twice.statusCode, 422, twice.body.slice(0, 300));
    assert.match(twice.body, /id="f-email-error">The email must be given once, not 2 times\.</);
    assert.equal(await t.container.owners.needsSetup(), true);
    const longCode = await post("/setup", { code: "A".repeat(100), email: EMAIL, password: PASSWORD });
    assert.equal(longCode.statusCode, 403, "an over-long code is a wrong one");
    assert.match(longCode.body, /The setup code is wrong\./);
    assert.equal(await t.container.owners.needsSetup(), true);

    // The code as someone may type it: lowercase, without the dash.
    const created = await post("/setup", {
      code: code.replace("-", "").toLowerCase(),
      email: EMAIL,
      password: PASSWORD,
    });
    assert.equal(created.statusCode, 201, created.body);
    const cookie = sessionCookieOf(created);
    assert.ok(cookie);
    const header = String(created.headers["set-cookie"]);
    assert.match(header, /HttpOnly/);
    assert.match(header, /SameSite=Lax/);
    assert.match(header, /Path=\//);
    // The API key is shown once, on this page, and works.
    const key = /<p class="key"><code>([^<]+)<\/code>/.exec(created.body)?.[1];
    assert.ok(key, "the page shows the new user's API key");
    const websites = await t.call(key, { url: "/api/v1/websites" });
    assert.equal(websites.statusCode, 200);
    const users = await t.call(key, { url: "/api/v1/users" });
    assert.equal(users.statusCode, 200, "the first user is an administrator");

    // Once a user exists the setup is closed, even with the right code.
    assert.equal((await get("/setup")).headers.location, "/sign-in");
    const again = await post("/setup", { code, email: "second@owner.example", password: PASSWORD });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, "/sign-in");
    assert.equal(JSON.parse((await t.call(key, { url: "/api/v1/users" })).body).meta.total, 1);
  });

  it("signs an owner in and shows their websites; the store keeps only the token's hash", async () => {
    const refused = await post("/sign-in", { email: EMAIL, password: "wrong password" });
    assert.equal(refused.statusCode, 401);
    assert.match(refused.body, /Wrong email or password\./);
    assert.equal(sessionCookieOf(refused), undefined);
    const unknown = await post("/sign-in", { email: "nobody@owner.example", password: PASSWORD });
    assert.equal(unknown.statusCode, 401, "an unknown email answers as a wrong password");

    const cookie = await signIn();
    assert.equal(
      (await get("/sign-in", cookie)).headers.location,
      "/",
      "signed in, the sign-in page leads home",
    );
    const { apiKey } = await t.container.users.rotateKey(EMAIL);
    const added = await t.call(apiKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "münchen-owner.example", privacy: "1" },
    });
    assert.equal(added.statusCode, 201, added.body);
    const home = await get("/", cookie);
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /<a class="site-name" href="\/websites\/\d+\/stats">münchen-owner\.example<\/a>/);
    assert.match(
      home.body,
      /<a href="\/websites\/\d+" aria-label="Settings of münchen-owner\.example">Settings<\/a>/,
    );
    assert.match(home.body, new RegExp(EMAIL));

    const stored: string[] = [];
    for await (const rows of t.container.metadata.exportRows("user_sessions")) {
      for (const row of rows) stored.push(String(row.token_hash));
    }
    assert.ok(stored.length >= 2);
    assert.ok(!stored.includes(cookie), "the token itself is not stored");
    assert.ok(stored.every((hash) => /^[0-9a-f]{64}$/.test(hash)));
  });

  it("opens the page asked for once signed in, and only a page of this server", async () => {
    const asked = `/websites/1/stats?from=2026-05-01&to=2026-05-31&filters=${encodeURIComponent("page==/ü?a=1&b=2")}`;
    const stranger = await get(asked);
    assert.equal(stranger.statusCode, 303);
    assert.equal(stranger.headers.location, `/sign-in?next=${encodeURIComponent(asked)}`);
    const form = await get(String(stranger.headers.location));
    assert.equal(form.statusCode, 200);
    assert.match(
      form.body,
      /<input type="hidden" name="next" value="\/websites\/1\/stats\?from=2026-05-01&amp;to=/,
    );

    // A wrong password keeps where to go; the right one goes there.
    const wrong = await post("/sign-in", { email: EMAIL, password: "wrong password", next: asked });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /name="next" value="\/websites\/1\/stats\?/);
    const right = await post("/sign-in", { email: EMAIL, password: PASSWORD, next: asked });
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, asked);
    const cookie = sessionCookieOf(right);
    assert.ok(cookie);
    assert.equal((await get("/sign-in?next=%2Faccount%2Fkeys", cookie)).headers.location, "/account/keys");

    // Raw unicode is sent on percent-encoded; anything leading off this server goes home.
    const unicode = await post("/sign-in", {
      email: EMAIL,
      password: PASSWORD,
      next: "/websites/1/stats?q=ü",
    });
    assert.equal(unicode.headers.location, "/websites/1/stats?q=%C3%BC");
    for (const next of [
      "//evil.example/",
      "/\\evil.example/",
      "/\t/evil.example/",
      "https://evil.example/",
      "evil.example",
      "/sign-in?next=//evil.example",
      `/${"x".repeat(9000)}`,
    ]) {
      const response = await post("/sign-in", { email: EMAIL, password: PASSWORD, next });
      assert.equal(response.statusCode, 303, next);
      assert.equal(response.headers.location, "/", JSON.stringify(next));
      assert.doesNotMatch((await get(`/sign-in?next=${encodeURIComponent(next)}`)).body, /name="next"/);
    }
    // The home page and a post lead to the sign-in page alone.
    assert.equal((await get("/")).headers.location, "/sign-in");
    assert.equal((await post("/account/password", {})).headers.location, "/sign-in");
  });

  it("takes an email or a password too long to be anyone's as a wrong sign-in, keeping the email", async () => {
    const form = await get("/sign-in");
    assert.match(form.body, /name="email" type="email" autocomplete="username" maxlength="320"/);
    assert.match(
      form.body,
      /name="password" type="password" autocomplete="current-password" maxlength="128"/,
    );
    const longPassword = await post("/sign-in", { email: EMAIL, password: "p".repeat(1025) });
    assert.equal(longPassword.statusCode, 401, longPassword.body.slice(0, 300));
    assert.match(longPassword.body, /Wrong email or password\./);
    assert.match(longPassword.body, /value="first@owner\.example"/, "the email is kept");
    const longEmail = `${"e".repeat(400)}@owner.example`;
    const refused = await post("/sign-in", { email: longEmail, password: PASSWORD });
    assert.equal(refused.statusCode, 401);
    assert.ok(refused.body.includes(`value="${longEmail}"`), "the email is kept");
    // No account's email holds a control character (PostgreSQL cannot be asked for a NUL).
    const control = await post("/sign-in", { email: `first\u0000@owner.example`, password: PASSWORD });
    assert.equal(control.statusCode, 401, control.body.slice(0, 300));
    assert.match(control.body, /Wrong email or password\./);
    await signIn();
  });

  it("gives the sign-in and password forms with a field sent twice back, saying so beside it", async () => {
    const signIn2 = await post("/sign-in", [
      ["email", EMAIL],
      ["password", "wrong password"],
      ["password", PASSWORD],
    ]);
    assert.equal(signIn2.statusCode, 422, signIn2.body.slice(0, 300));
    assert.match(signIn2.body, /id="f-password-error">The password must be given once, not 2 times\.</);
    assert.match(signIn2.body, /value="first@owner\.example"/, "the email is kept");
    assert.equal(sessionCookieOf(signIn2), undefined, "nobody is signed in");

    const cookie = await signIn();
    const token = formTokenOf((await get("/account/password", cookie)).body);
    const change = await post(
      "/account/password",
      [
        ["csrf", token],
        ["current_password", PASSWORD],
        ["new_password", "first new passphrase"],
        ["new_password", "second new passphrase"],
      ],
      { cookie },
    );
    assert.equal(change.statusCode, 422, change.body.slice(0, 300));
    assert.match(
      change.body,
      /id="f-new_password-error">The new password must be given once, not 2 times\.</,
    );
    assert.equal((await get("/", cookie)).statusCode, 200, "still signed in, the password unchanged");
    await signIn();
  });

  it("refuses posts from other sites and signed-in forms without their token", async () => {
    const crossSite = await post(
      "/sign-in",
      { email: EMAIL, password: PASSWORD },
      { headers: { "sec-fetch-site": "cross-site" } },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal(sessionCookieOf(crossSite), undefined);
    const otherOrigin = await post(
      "/sign-in",
      { email: EMAIL, password: PASSWORD },
      { headers: { "sec-fetch-site": "", origin: "https://evil.example" } },
    );
    assert.equal(otherOrigin.statusCode, 403);

    const cookie = await signIn();
    const noToken = await post("/sign-out", {}, { cookie });
    assert.equal(noToken.statusCode, 403);
    const wrongToken = await post("/sign-out", { csrf: "x".repeat(43) }, { cookie });
    assert.equal(wrongToken.statusCode, 403);
    const otherSession = await signIn();
    const borrowed = formTokenOf((await get("/", otherSession)).body);
    assert.equal(
      (await post("/sign-out", { csrf: borrowed }, { cookie })).statusCode,
      403,
      "another sign-in's token",
    );
    assert.equal((await get("/", cookie)).statusCode, 200, "still signed in");
    const password = await post(
      "/account/password",
      { current_password: PASSWORD, new_password: "taken over!" },
      { cookie },
    );
    assert.equal(password.statusCode, 403);
  });

  it("signs out on this cookie and every copy of it", async () => {
    const cookie = await signIn();
    const token = formTokenOf((await get("/", cookie)).body);
    const out = await post("/sign-out", { csrf: token }, { cookie });
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, "/sign-in");
    assert.equal(sessionCookieOf(out), "", "the cookie is cleared");
    const home = await get("/", cookie);
    assert.equal(home.statusCode, 303, "a copy of the cookie no longer signs in");
    assert.equal(home.headers.location, "/sign-in");
  });

  it("changes the password, signing every other browser out", async () => {
    const here = await signIn();
    const elsewhere = await signIn();
    const page = await get("/account/password", here);
    assert.equal(page.statusCode, 200);
    const token = formTokenOf(page.body);
    const wrong = await post(
      "/account/password",
      { csrf: token, current_password: "not it at all", new_password: "a new passphrase" },
      { cookie: here },
    );
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /The current password is wrong\./);
    const short = await post(
      "/account/password",
      { csrf: token, current_password: PASSWORD, new_password: "short" },
      { cookie: here },
    );
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /at least 8 characters/);
    const long = await post(
      "/account/password",
      { csrf: token, current_password: PASSWORD, new_password: "p".repeat(1025) },
      { cookie: here },
    );
    assert.equal(long.statusCode, 422, long.body.slice(0, 300));
    assert.match(
      long.body,
      /id="f-new_password-error">The password must not be greater than 128 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    const longCurrent = await post(
      "/account/password",
      { csrf: token, current_password: "p".repeat(1025), new_password: "a new passphrase" },
      { cookie: here },
    );
    assert.equal(longCurrent.statusCode, 401);
    assert.match(longCurrent.body, /The current password is wrong\./);
    assert.equal((await get("/", elsewhere)).statusCode, 200, "nothing changed yet");

    const changed = await post(
      "/account/password",
      { csrf: token, current_password: PASSWORD, new_password: "a new passphrase" },
      { cookie: here },
    );
    assert.equal(changed.statusCode, 200, changed.body);
    assert.match(changed.body, /Password changed\./);
    const renewed = sessionCookieOf(changed);
    assert.ok(renewed && renewed !== here, "this browser gets a new sign-in");
    assert.equal((await get("/", renewed)).statusCode, 200);
    assert.equal((await get("/", here)).statusCode, 303, "the old sign-in ended");
    assert.equal((await get("/", elsewhere)).statusCode, 303, "the other browser is signed out");
    assert.equal((await post("/sign-in", { email: EMAIL, password: PASSWORD })).statusCode, 401);
    const back = await signIn("a new passphrase");
    const restored = await post(
      "/account/password",
      {
        csrf: formTokenOf((await get("/account/password", back)).body),
        current_password: "a new passphrase",
        new_password: PASSWORD,
      },
      { cookie: back },
    );
    assert.equal(restored.statusCode, 200);
  });

  it("counts a password's length as the field's maxlength does, an emoji as 2", async () => {
    const cookie = await signIn();
    const token = formTokenOf((await get("/account/password", cookie)).body);
    const over = await post(
      "/account/password",
      { csrf: token, current_password: PASSWORD, new_password: "😀".repeat(65) },
      { cookie },
    );
    assert.equal(over.statusCode, 422);
    assert.match(
      over.body,
      /id="f-new_password-error">The password must not be greater than 128 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    // 64 fill the field's maxlength of 128: taken, and they sign in.
    const fits = await post(
      "/account/password",
      { csrf: token, current_password: PASSWORD, new_password: "😀".repeat(64) },
      { cookie },
    );
    assert.equal(fits.statusCode, 200, fits.body.slice(0, 300));
    const back = await signIn("😀".repeat(64));
    const restored = await post(
      "/account/password",
      {
        csrf: formTokenOf((await get("/account/password", back)).body),
        current_password: "😀".repeat(64),
        new_password: PASSWORD,
      },
      { cookie: back },
    );
    assert.equal(restored.statusCode, 200);
  });

  it("says what is wrong with both passwords at once; only a wrong current one counts", async () => {
    const cookie = await signIn();
    const token = formTokenOf((await get("/account/password", cookie)).body);
    const change = (current_password: string, new_password: string, ip: string) =>
      post("/account/password", { csrf: token, current_password, new_password }, { cookie, ip });
    const both = await change("not it at all", "short", freshIp());
    assert.equal(both.statusCode, 401);
    assert.match(both.body, /id="f-current_password-error">The current password is wrong\.</);
    assert.match(both.body, /id="f-new_password-error">The password must be at least 8 characters\.</);

    // A right current password with a refused new one neither signs in nor counts as wrong.
    const ip = freshIp();
    const rows = await sessionRows();
    for (let attempt = 0; attempt <= MAX_WRONG_ATTEMPTS; attempt++) {
      const short = await change(PASSWORD, "short", ip);
      assert.equal(short.statusCode, 422);
      assert.match(short.body, /id="f-new_password-error">The password must be at least 8 characters\.</);
      assert.doesNotMatch(short.body, /f-current_password-error/);
    }
    assert.equal(await sessionRows(), rows, "no sign-in was started");
    // A wrong current password does count, as a wrong sign-in.
    for (let attempt = 0; attempt < MAX_WRONG_ATTEMPTS; attempt++)
      assert.equal((await change(`guess ${attempt}`, "a new passphrase", ip)).statusCode, 401);
    assert.equal((await change(PASSWORD, "a new passphrase", ip)).statusCode, 429);
    assert.equal((await post("/sign-in", { email: EMAIL, password: PASSWORD }, { ip })).statusCode, 429);
    assert.equal((await get("/", cookie)).statusCode, 200, "the password is unchanged, still signed in");
  });

  it("limits wrong passwords per address and email, and ends sign-ins when they expire", async () => {
    const ip = freshIp();
    for (let attempt = 0; attempt < MAX_WRONG_ATTEMPTS; attempt++) {
      const response = await post("/sign-in", { email: EMAIL, password: `guess ${attempt}` }, { ip });
      assert.equal(response.statusCode, 401);
    }
    const limited = await post("/sign-in", { email: EMAIL, password: PASSWORD }, { ip });
    assert.equal(limited.statusCode, 429, "even the right password waits");
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    assert.match(limited.body, /Too many attempts/);
    assert.equal(
      (await post("/sign-in", { email: EMAIL, password: PASSWORD })).statusCode,
      303,
      "another address is not",
    );

    const cookie = await signIn();
    clock.advance((OWNER_SESSION_SECONDS - 60) * 1000);
    assert.equal((await get("/", cookie)).statusCode, 200);
    clock.advance(120_000);
    assert.equal((await get("/", cookie)).headers.location, "/sign-in", "an expired sign-in is refused");
    assert.ok((await sessionRows()) > 1);
    await signIn();
    assert.equal(await sessionRows(), 1, "a new sign-in clears the expired ones");
  });
});
