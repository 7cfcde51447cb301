// The web app's users page, for administrators only: create a user (key shown once, an
// optional password), disable one (their keys, sign-ins and email reports stop; their
// websites stay), enable them again, set their password; never disable oneself.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { ManualClock } from "../src/clock.js";
import { MAX_WRONG_ATTEMPTS } from "../src/sign-in/attempt-limiter.js";
import { SESSION_COOKIE } from "../src/web/web-request.js";
import { hashPassword } from "../src/websites/password-hash.js";
import { createTestApp, TEST_PASSWORD_COST, type TestApp } from "./support/test-app.js";
import { asClient, type FormFields, postSignIn, signedIn, type WebClient } from "./support/web-client.js";

const ADMIN = "admin@users.example";
const PASSWORD = "admin passphrase";

describe("web app users", () => {
  let t: TestApp;
  let admin = "";
  let adminId = 0;
  let adminKey = "";

  let client: WebClient;
  const signIn = (email: string, password: string) => postSignIn(t, email, password);
  const cookieOf = async (email: string, password: string) => (await signedIn(t, email, password)).cookie;
  const get = (url: string, cookie = admin) => asClient(t, cookie).get(url);
  const post = (url: string, form: FormFields, cookie = admin) => asClient(t, cookie).post(url, form);
  const csrf = () => client.formToken("/users");
  const signInFrom = (ip: string, email: string, password: string) =>
    t.app.inject({
      method: "POST",
      url: "/sign-in",
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ email, password }).toString(),
    });
  const sessionCookieOf = (response: { headers: Record<string, unknown> }) =>
    new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(String(response.headers["set-cookie"] ?? ""))?.[1];

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-06-01T12:00:00Z"));
    const created = await t.container.users.create({
      email: ADMIN,
      admin: true,
      passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
    });
    adminId = created.user.id;
    adminKey = created.apiKey;
    client = await signedIn(t, ADMIN, PASSWORD);
    admin = client.cookie;
  });

  after(async () => {
    await t.close();
  });

  it("is an administrator's page only", async () => {
    const stranger = await t.app.inject({ method: "GET", url: "/users" });
    assert.equal(stranger.headers.location, "/sign-in?next=%2Fusers");
    await t.container.users.create({
      email: "plain@users.example",
      passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
    });
    const plain = await cookieOf("plain@users.example", PASSWORD);
    const refused = await get("/users", plain);
    assert.equal(refused.statusCode, 404);
    assert.doesNotMatch((await get("/", plain)).body, /href="\/users"/, "no link to it either");
    assert.match((await get("/")).body, /href="\/users"/);
    assert.equal((await post("/users", { email: "x@users.example" }, plain)).statusCode, 404);
  });

  it("creates users with the API's rules, the key shown once", async () => {
    const token = await csrf();
    const invalid = await post("/users", { csrf: token, email: "not an email", password: "short" });
    assert.equal(invalid.statusCode, 422);
    assert.match(invalid.body, /at least 8 characters/);
    const badEmail = await post("/users", { csrf: token, email: "not an email" });
    assert.equal(badEmail.statusCode, 422);
    assert.match(badEmail.body, /The email must be a valid email address\./);
    const created = await post("/users", {
      csrf: token,
      email: "New@Users.example",
      password: "new user passphrase",
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = /<p class="key"><code>(ak_[^<]+)<\/code>/.exec(created.body)?.[1];
    assert.ok(key);
    assert.match(created.body, /new@users\.example/);
    assert.equal((await t.call(key, { url: "/api/v1/websites" })).statusCode, 200);
    assert.equal((await signIn("new@users.example", "new user passphrase")).statusCode, 303);
    assert.equal((await t.call(key, { url: "/api/v1/users" })).statusCode, 403, "not an administrator");
  });

  /** The page a change redirected to (post/redirect/get), which must be the users list. */
  const followed = async (posted: LightMyRequestResponse) => {
    assert.equal(posted.statusCode, 303, posted.body.slice(0, 300));
    const location = String(posted.headers.location);
    assert.match(location, /^\/users\?/);
    const shown = await get(location);
    assert.equal(shown.statusCode, 200);
    return shown;
  };

  it("answers each change with a redirect to the list, which says what was done", async () => {
    const { user } = await t.container.users.create({
      email: "reloaded@users.example",
      passwordHash: await hashPassword("reloaded passphrase", TEST_PASSWORD_COST),
    });
    const changes: [string, Record<string, string>, string][] = [
      ["disable", {}, "User disabled: their keys and sign-ins no longer work."],
      ["enable", {}, "User enabled again."],
      ["password", { password: "another passphrase" }, "Password set: the user&#39;s sign-ins have ended."],
    ];
    for (const [action, form, notice] of changes) {
      const shown = await followed(
        await post(`/users/${user.id}/${action}`, { csrf: await csrf(), ...form }),
      );
      assert.ok(shown.body.includes(`<p class="notice" role="status">${notice}</p>`), action);
    }
    assert.equal((await signIn("reloaded@users.example", "another passphrase")).statusCode, 303);
    // The notice is one of the app's own sentences, never text from the address.
    const crafted = await get("/users?done=%3Cb%3Eowned%3C%2Fb%3E");
    assert.equal(crafted.statusCode, 200);
    assert.doesNotMatch(crafted.body, /class="notice"|owned/);
    assert.doesNotMatch((await get("/users?done=constructor")).body, /class="notice"/);

    // A change refused is answered in place, saying why, and changes nothing.
    const short = await post(`/users/${user.id}/password`, { csrf: await csrf(), password: "short" });
    assert.equal(short.statusCode, 422);
    assert.equal(short.headers.location, undefined);
    assert.match(short.body, /at least 8 characters/);
    const self = await post(`/users/${adminId}/disable`, { csrf: await csrf() });
    assert.equal(self.statusCode, 403);
    assert.equal(self.headers.location, undefined);
    const missing = await post("/users/999999/enable", { csrf: await csrf() });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /There is no such user\./);
  });

  /** The message shown beside `field`, or undefined. */
  const besideField = (body: string, field: string) =>
    new RegExp(`id="f-${field}-error">([^<]*)<`).exec(body)?.[1];

  it("refuses a name over 255 characters as the API does, beside the field, keeping what was typed", async () => {
    const long = "n".repeat(256);
    const api = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: "long-name@users.example", name: long },
    });
    assert.equal(api.statusCode, 422);
    const message: string = api.json().message.name[0];
    assert.equal(
      message,
      "The name must not be greater than 255 characters (UTF-16 code units: an emoji counts as 2 or more).",
    );

    const form = await get("/users");
    assert.match(form.body, /id="f-name" name="name" type="text" autocomplete="off" maxlength="255"/);
    assert.match(form.body, /id="f-email" name="email" type="email" autocomplete="off" maxlength="320"/);
    const refused = await post("/users", {
      csrf: await csrf(),
      email: "long-name@users.example",
      name: long,
      password: "long name passphrase",
      admin: "1",
    });
    assert.equal(refused.statusCode, 422, refused.body.slice(0, 300));
    assert.equal(besideField(refused.body, "name"), message);
    assert.ok(refused.body.includes(`value="${long}"`), "the name is kept");
    assert.match(refused.body, /value="long-name@users\.example"/, "the email is kept");
    assert.match(refused.body, /id="f-admin" name="admin" type="checkbox" value="1" checked/);
    assert.equal(
      (await t.call(adminKey, { url: "/api/v1/users?per_page=100" }))
        .json()
        .data.some((user: { email: string }) => user.email === "long-name@users.example"),
      false,
      "nobody was created",
    );

    const overLong = await post("/users", {
      csrf: await csrf(),
      email: `${"e".repeat(320)}@users.example`,
      password: "p".repeat(1025),
    });
    assert.equal(overLong.statusCode, 422);
    assert.equal(
      besideField(overLong.body, "email"),
      "The email must not be greater than 320 characters (UTF-16 code units: an emoji counts as 2 or more).",
    );
    assert.equal(
      besideField(overLong.body, "password"),
      "The password must not be greater than 128 characters (UTF-16 code units: an emoji counts as 2 or more).",
    );

    const fits = await post("/users", {
      csrf: await csrf(),
      email: "long-name@users.example",
      name: long.slice(1),
    });
    assert.equal(fits.statusCode, 201, "255 characters are a name");
  });

  it("counts a name's and an email's length as their fields' maxlength does, an emoji as 2", async () => {
    const unit = "characters (UTF-16 code units: an emoji counts as 2 or more).";
    const sent = { email: `${"😀".repeat(154)}@users.example`, name: "😀".repeat(128) };
    const api = await t.call(adminKey, { method: "POST", url: "/api/v1/users", form: sent });
    assert.equal(api.statusCode, 422, api.body);
    assert.deepEqual(api.json().message, {
      email: [`The email must not be greater than 320 ${unit}`],
      name: [`The name must not be greater than 255 ${unit}`],
    });
    const form = await post("/users", { csrf: await csrf(), ...sent });
    assert.equal(form.statusCode, 422, form.body.slice(0, 300));
    assert.equal(besideField(form.body, "email"), `The email must not be greater than 320 ${unit}`);
    assert.equal(besideField(form.body, "name"), `The name must not be greater than 255 ${unit}`);
    // What fills the fields' maxlength (320 and 255) is taken.
    const name = `${"😀".repeat(127)}n`;
    const fits = { email: `${"😀".repeat(153)}@users.example`, name };
    const fitsApi = await t.call(adminKey, { method: "POST", url: "/api/v1/users", form: fits });
    assert.equal(fitsApi.statusCode, 201, fitsApi.body);
    const fitsForm = await post("/users", {
      csrf: await csrf(),
      email: `${"😀".repeat(152)}ab@users.example`,
      name,
    });
    assert.equal(fitsForm.statusCode, 201, fitsForm.body.slice(0, 300));
  });

  it("says what is wrong with every field at once", async () => {
    const bad = await post("/users", { csrf: await csrf(), email: "bad", password: "short" });
    assert.equal(bad.statusCode, 422);
    assert.equal(besideField(bad.body, "email"), "The email must be a valid email address.");
    assert.equal(besideField(bad.body, "password"), "The password must be at least 8 characters.");
    assert.match(bad.body, /value="bad"/);

    const taken = await post("/users", { csrf: await csrf(), email: ADMIN, password: "short" });
    assert.equal(taken.statusCode, 422);
    assert.equal(besideField(taken.body, "email"), "The email has already been taken.");
    assert.equal(besideField(taken.body, "password"), "The password must be at least 8 characters.");
    const setPassword = await post(`/users/${adminId}/password`, {
      csrf: await csrf(),
      password: "p".repeat(1025),
    });
    assert.equal(setPassword.statusCode, 422, "an over-long password is said so, not a 400");
    assert.match(
      setPassword.body,
      /The password must not be greater than 128 characters \(UTF-16 code units: an emoji counts as 2 or more\)\./,
    );
  });

  it("says what is wrong with a password being set beside its field, in that user's form alone", async () => {
    const { user } = await t.container.users.create({
      email: "beside@users.example",
      passwordHash: await hashPassword("beside passphrase", TEST_PASSWORD_COST),
    });
    /** The set-password form of user `id` on a page. */
    const formOf = (body: string, id: number) =>
      new RegExp(
        `<details[^>]*><summary>Set password</summary><form [^>]*action="/users/${id}/password[^"]*".*?</details>`,
        "s",
      ).exec(body)?.[0] ?? "";
    const cases: [string, string][] = [
      ["short", "The password must be at least 8 characters."],
      // 8 UTF-16 code units, 4 characters: the minimum counts characters.
      ["🔑🔐🔒🔓", "The password must be at least 8 characters."],
      [
        "p".repeat(129),
        "The password must not be greater than 128 characters (UTF-16 code units: an emoji counts as 2 or more).",
      ],
    ];
    for (const [password, message] of cases) {
      const refused = await post(`/users/${user.id}/password`, { csrf: await csrf(), password });
      assert.equal(refused.statusCode, 422);
      assert.doesNotMatch(refused.body, /<p class="error"/, "not at the top of the page");
      const form = formOf(refused.body, user.id);
      assert.match(form, /^<details open>/, "the form is open");
      assert.match(
        form,
        new RegExp(
          `<input id="p-${user.id}" name="password" [^>]*autofocus aria-invalid="true" aria-describedby="p-${user.id}-error">`,
        ),
      );
      assert.ok(form.includes(`<span class="field-error" id="p-${user.id}-error">${message}</span>`), form);
      assert.equal(refused.body.match(/aria-invalid|field-error/g)?.length, 2, "no other field is marked");
      assert.match(formOf(refused.body, adminId), /^<details>/, "another user's form stays closed");
    }
    assert.equal((await signIn("beside@users.example", "beside passphrase")).statusCode, 303, "unchanged");

    // On a later page of the list, the forms come back to that page, where the user is.
    for (let i = 0; i < 25; i++) await t.container.users.create({ email: `filler-${i}@users.example` });
    const second = await get("/users?page=2");
    assert.ok(second.body.includes(`action="/users/${user.id}/password?page=2"`), "the form says its page");
    const refused = await post(`/users/${user.id}/password?page=2`, {
      csrf: await csrf(),
      password: "short",
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /<span>Page 2 of \d+<\/span>/);
    assert.ok(
      formOf(refused.body, user.id).includes(`id="p-${user.id}-error">The password must be at least 8`),
    );
    // Posted from another page (the list has grown since), the form is not on the page: said above it.
    const elsewhere = await post(`/users/${user.id}/password`, { csrf: await csrf(), password: "short" });
    assert.equal(elsewhere.statusCode, 422);
    assert.match(
      elsewhere.body,
      /<p class="error" role="alert">The password must be at least 8 characters\.<\/p>/,
    );
    const set = await post(`/users/${user.id}/password?page=2`, {
      csrf: await csrf(),
      password: "beside passphrase 2",
    });
    assert.equal(set.headers.location, "/users?page=2&done=password");
    const disabled = await post(`/users/${user.id}/disable?page=2`, { csrf: await csrf() });
    assert.equal(disabled.headers.location, "/users?page=2&done=disabled");
  });

  it("gives a form with a field sent twice back, saying so beside it, and changes nothing", async () => {
    const token = await csrf();
    const twice = await post("/users", [
      ["csrf", token],
      ["email", "twice@users.example"],
      ["name", "First"],
      ["name", "Second"],
      ["admin", "1"],
      ["admin", "0"],
    ]);
    assert.equal(twice.statusCode, 422, twice.body.slice(0, 300));
    assert.equal(besideField(twice.body, "name"), "The name must be given once, not 2 times.");
    assert.equal(besideField(twice.body, "admin"), "The admin must be given once, not 2 times.");
    assert.equal(besideField(twice.body, "email"), undefined);
    assert.match(twice.body, /value="twice@users\.example"/, "what was typed is kept");
    const { data } = (await t.call(adminKey, { url: "/api/v1/users?per_page=100" })).json();
    assert.ok(
      !data.some((user: { email: string }) => user.email === "twice@users.example"),
      "nobody created",
    );

    const { user } = await t.container.users.create({
      email: "twice-password@users.example",
      passwordHash: await hashPassword("twice passphrase", TEST_PASSWORD_COST),
    });
    const password = await post(`/users/${user.id}/password`, [
      ["csrf", token],
      ["password", "first passphrase"],
      ["password", "second passphrase"],
    ]);
    assert.equal(password.statusCode, 422);
    assert.ok(
      password.body.includes(
        `<span class="field-error" id="p-${user.id}-error">The password must be given once, not 2 times.</span>`,
      ),
    );
    assert.equal((await signIn("twice-password@users.example", "twice passphrase")).statusCode, 303);

    // The form token is checked, not shown: the first one sent is the one checked.
    const wrongFirst = await post(`/users/${user.id}/disable`, [
      ["csrf", "x".repeat(43)],
      ["csrf", token],
    ]);
    assert.equal(wrongFirst.statusCode, 403);
    const sameTwice = await post(`/users/${user.id}/disable`, [
      ["csrf", token],
      ["csrf", token],
    ]);
    assert.equal(sameTwice.statusCode, 303);
  });

  it("disables a user (keys, sign-ins and reports stop, websites stay) and enables them again", async () => {
    const { user, apiKey } = await t.container.users.create({
      email: "doomed@users.example",
      passwordHash: await hashPassword("doomed passphrase", TEST_PASSWORD_COST),
    });
    const website = await t.call(apiKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "doomed-user.example", privacy: "0", email: "1" },
    });
    assert.equal(website.statusCode, 201);
    const theirs = await cookieOf("doomed@users.example", "doomed passphrase");
    const reportsBefore = await t.container.metadata.reports.recipients();
    assert.ok(reportsBefore.some((recipient) => recipient.user.id === user.id));

    assert.equal((await post(`/users/${user.id}/disable`, {})).statusCode, 403, "no form token");
    const disabled = await followed(await post(`/users/${user.id}/disable`, { csrf: await csrf() }));
    assert.match(disabled.body, /User disabled/);
    assert.match(disabled.body, /doomed@users\.example<\/span>\s*<span class="site-meta">User · disabled/);
    assert.equal((await t.call(apiKey, { url: "/api/v1/websites" })).statusCode, 401);
    assert.equal((await get("/", theirs)).headers.location, "/sign-in", "their sign-in ended");
    // The right password is told the account is disabled and who can enable it; a wrong one
    // is not, so the account's existence is given away only to whoever knows its password.
    const refused = await signIn("doomed@users.example", "doomed passphrase");
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /This account is disabled\. An administrator can enable it again\./);
    assert.doesNotMatch(refused.body, /Wrong email or password/);
    assert.equal(sessionCookieOf(refused), undefined);
    const wrong = await signIn("doomed@users.example", "not their passphrase");
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /Wrong email or password\./);
    assert.doesNotMatch(wrong.body, /disabled/);
    // Either counts as a wrong attempt, as before.
    const ip = "198.51.100.7";
    for (let attempt = 0; attempt < MAX_WRONG_ATTEMPTS; attempt++)
      assert.equal((await signInFrom(ip, "doomed@users.example", "doomed passphrase")).statusCode, 403);
    assert.equal((await signInFrom(ip, "doomed@users.example", "doomed passphrase")).statusCode, 429);
    const reportsAfter = await t.container.metadata.reports.recipients();
    assert.ok(!reportsAfter.some((recipient) => recipient.user.id === user.id), "no email reports");
    assert.equal(
      (await t.app.inject({ method: "GET", url: "/doomed-user.example" })).statusCode,
      200,
      "the website stays",
    );

    const enabled = await followed(await post(`/users/${user.id}/enable`, { csrf: await csrf() }));
    assert.match(enabled.body, /User enabled again\./);
    assert.equal(
      (await t.call(apiKey, { url: "/api/v1/websites" })).statusCode,
      200,
      "the same key works again",
    );
    assert.equal((await signIn("doomed@users.example", "doomed passphrase")).statusCode, 303);
  });

  it("sets a user's password, ending their sign-ins; never disables oneself", async () => {
    const { user } = await t.container.users.create({
      email: "forgetful@users.example",
      passwordHash: await hashPassword("forgotten passphrase", TEST_PASSWORD_COST),
    });
    const theirs = await cookieOf("forgetful@users.example", "forgotten passphrase");
    const short = await post(`/users/${user.id}/password`, { csrf: await csrf(), password: "short" });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /at least 8 characters/);
    const set = await followed(
      await post(`/users/${user.id}/password`, { csrf: await csrf(), password: "remembered passphrase" }),
    );
    assert.match(set.body, /Password set/);
    assert.equal((await get("/", theirs)).headers.location, "/sign-in");
    assert.equal((await signIn("forgetful@users.example", "forgotten passphrase")).statusCode, 401);
    assert.equal((await signIn("forgetful@users.example", "remembered passphrase")).statusCode, 303);

    const self = await post(`/users/${adminId}/disable`, { csrf: await csrf() });
    assert.equal(self.statusCode, 403);
    assert.match(self.body, /You cannot disable yourself\./);
    assert.equal((await get("/users")).statusCode, 200, "still signed in");
    assert.equal((await post("/users/999999/disable", { csrf: await csrf() })).statusCode, 404);
    assert.equal((await post("/users/abc/enable", { csrf: await csrf() })).statusCode, 404);
    const huge = await post(`/users/${"9".repeat(30)}/enable`, { csrf: await csrf() });
    assert.equal(huge.statusCode, 404);
    assert.match(huge.body, /There is no such user\./);
  });
});
