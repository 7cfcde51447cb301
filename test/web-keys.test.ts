// API keys in the web app: an owner makes further named keys, full or read-only, each shown
// once; a read-only key reads statistics and websites and is refused (403) anything else;
// each key's last use is shown; revoking one stops it at once and leaves the others (the
// primary key included) working; another owner's key cannot be revoked.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { hashPassword } from "../src/websites/password-hash.js";
import { createTestApp, TEST_PASSWORD_COST, type TestApp } from "./support/test-app.js";
import { type FormFields, signedIn, type WebClient } from "./support/web-client.js";

const PASSWORD = "keys passphrase";
const KEY = /<p class="key"><code>(ak_[^<]+)<\/code>/;

describe("web app API keys", () => {
  let t: TestApp;
  let clock: ManualClock;
  let primary = "";

  let client: WebClient;
  const get = (url: string) => client.get(url);
  const post = (url: string, form: FormFields) => client.post(url, form);
  const csrf = () => client.formToken("/account/keys");
  const create = async (name: string, access: "read" | "full") => {
    const response = await post("/account/keys", { csrf: await csrf(), name, access });
    assert.equal(response.statusCode, 201, response.body);
    const key = KEY.exec(response.body)?.[1];
    assert.ok(key, "the new key is shown");
    return key;
  };

  before(async () => {
    clock = new ManualClock("2026-06-01T12:00:00Z");
    t = await createTestApp({}, clock);
    primary = (
      await t.container.users.create({
        email: "keys@owner.example",
        passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
      })
    ).apiKey;
    client = await signedIn(t, "keys@owner.example", PASSWORD);
  });

  after(async () => {
    await t.close();
  });

  it("lists the primary key and refuses a nameless key or an unknown access", async () => {
    const page = await get("/account/keys");
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /Primary key<\/span>\s*<span class="site-meta">Full access · created 2026-06-01 12:00 UTC · last used never/,
    );
    const token = await csrf();
    const nameless = await post("/account/keys", { csrf: token, name: "  ", access: "read" });
    assert.equal(nameless.statusCode, 422);
    assert.match(nameless.body, /The name field is required\./);
    const access = await post("/account/keys", { csrf: token, name: "x", access: "admin" });
    assert.equal(access.statusCode, 422);
    assert.match(access.body, /The access must be one of: read, full\./);
    assert.equal((await post("/account/keys", { name: "no token", access: "read" })).statusCode, 403);
    assert.match(page.body, /name="name" type="text" autocomplete="off" maxlength="100"/);
    const long = await post("/account/keys", { csrf: token, name: "k".repeat(1001), access: "full" });
    assert.equal(long.statusCode, 422, long.body.slice(0, 300));
    assert.match(
      long.body,
      /id="f-name-error">The name must not be greater than 100 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    assert.ok(long.body.includes(`value="${"k".repeat(1001)}"`), "the name is kept");
    // An emoji counts as 2, as the field's maxlength counts it; the sentence says so.
    const emoji = await post("/account/keys", { csrf: token, name: "😀".repeat(51), access: "full" });
    assert.equal(emoji.statusCode, 422);
    assert.match(
      emoji.body,
      /id="f-name-error">The name must not be greater than 100 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    await create("😀".repeat(50), "full");
    assert.match(long.body, /value="full" checked/, "the access is kept");
    const control = await post("/account/keys", { csrf: token, name: "nul \u0000 key", access: "full" });
    assert.equal(control.statusCode, 422, control.body.slice(0, 300));
    assert.match(control.body, /id="f-name-error">The name must not contain control characters\.</);
  });

  it("gives a form with a field sent twice back, saying so beside it, and makes no key", async () => {
    const twice = await post("/account/keys", [
      ["csrf", await csrf()],
      ["name", "Twice"],
      ["access", "read"],
      ["access", "full"],
    ]);
    assert.equal(twice.statusCode, 422, twice.body.slice(0, 300));
    assert.match(twice.body, /id="f-access-error">The access must be given once, not 2 times\.</);
    assert.match(twice.body, /value="Twice"/, "the name is kept");
    assert.doesNotMatch(twice.body, /class="key"/);
    assert.doesNotMatch((await get("/account/keys")).body, /Twice/, "no key made");
  });

  it("makes a read-only key that reads statistics and websites only", async () => {
    const readOnly = await create("Grafana", "read");
    const website = await t.call(primary, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "keys.example" },
    });
    const id = website.json().data.id;
    assert.equal((await t.call(readOnly, { url: "/api/v1/websites" })).statusCode, 200);
    assert.equal((await t.call(readOnly, { url: `/api/v1/websites/${id}` })).statusCode, 200);
    assert.equal(
      (await t.call(readOnly, { url: `/api/v1/stats/${id}?name=visitors&from=2026-05-01&to=2026-05-31` }))
        .statusCode,
      200,
    );
    for (const [method, url] of [
      ["POST", "/api/v1/websites"],
      ["PUT", `/api/v1/websites/${id}`],
      ["DELETE", `/api/v1/websites/${id}`],
      ["POST", "/api/v1/events"],
      ["GET", "/api/v1/users"],
    ] as const) {
      const refused = await t.call(readOnly, { method, url, form: { domain: "refused.example" } });
      assert.equal(refused.statusCode, 403, `${method} ${url}`);
      assert.deepEqual(refused.json(), { message: "This action is unauthorized.", status: 403 });
    }
    assert.equal(
      (await t.call(readOnly, { url: `/api/v1/websites/${id}` })).json().data.domain,
      "keys.example",
    );
  });

  it("shows when each key was last used, and revokes one without touching the others", async () => {
    const full = await create("Deploy script", "full");
    const doomed = await create("Old laptop", "read");
    clock.advance(5 * 60_000);
    assert.equal(
      (await t.call(full, { method: "POST", url: "/api/v1/websites", form: { domain: "full.example" } }))
        .statusCode,
      201,
    );
    assert.equal((await t.call(primary, { url: "/api/v1/websites" })).statusCode, 200);
    const page = await get("/account/keys");
    assert.match(
      page.body,
      /Deploy script<\/span>\s*<span class="site-meta">Full access · created 2026-06-01 12:00 UTC · last used 2026-06-01 12:05 UTC/,
    );
    assert.match(
      page.body,
      /Old laptop<\/span>\s*<span class="site-meta">Read-only · created 2026-06-01 12:00 UTC · last used never/,
    );
    assert.match(
      page.body,
      /Primary key<\/span>\s*<span class="site-meta">Full access · created [^·]+· last used 2026-06-01 12:05 UTC/,
    );

    const doomedId = doomed.slice(3, 19);
    // The list links to a page that asks first, whose form revokes.
    assert.match(page.body, new RegExp(`<a class="button danger" href="/account/keys/${doomedId}/revoke"`));
    const asked = await get(`/account/keys/${doomedId}/revoke`);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Revoke the key “Old laptop”\?/);
    assert.match(asked.body, new RegExp(`<form method="post" action="/account/keys/${doomedId}/revoke">`));
    assert.equal(
      (await t.call(doomed, { url: "/api/v1/websites" })).statusCode,
      200,
      "asking revokes nothing",
    );
    assert.equal((await post(`/account/keys/${doomedId}/revoke`, {})).statusCode, 403, "no form token");
    const revoking = await post(`/account/keys/${doomedId}/revoke`, { csrf: await csrf() });
    assert.equal(revoking.statusCode, 303, "post/redirect/get");
    assert.equal(revoking.headers.location, "/account/keys?revoked=1");
    const revoked = await get("/account/keys?revoked=1");
    assert.equal(revoked.statusCode, 200);
    assert.match(revoked.body, /Key revoked\./);
    assert.doesNotMatch(revoked.body, /Old laptop/);
    assert.equal(
      (await t.call(doomed, { url: "/api/v1/websites" })).statusCode,
      401,
      "a revoked key stops at once",
    );
    assert.equal((await t.call(full, { url: "/api/v1/websites" })).statusCode, 200);
    assert.equal((await t.call(primary, { url: "/api/v1/websites" })).statusCode, 200);
    assert.equal((await post(`/account/keys/${doomedId}/revoke`, { csrf: await csrf() })).statusCode, 404);
    assert.equal(
      (await get(`/account/keys/${doomedId}/revoke`)).statusCode,
      404,
      "a revoked key is not asked about",
    );
  });

  it("cannot revoke another owner's key", async () => {
    const other = await t.container.users.create({ email: "other-keys@owner.example" });
    const theirs = await t.container.keys.create(other.user, { name: "Theirs", readOnly: false });
    assert.equal(
      (await get(`/account/keys/${theirs.record.keyId}/revoke`)).statusCode,
      404,
      "not asked either",
    );
    const response = await post(`/account/keys/${theirs.record.keyId}/revoke`, { csrf: await csrf() });
    assert.equal(response.statusCode, 404);
    assert.equal(
      (await t.call(theirs.key, { url: "/api/v1/websites" })).statusCode,
      200,
      "their key still works",
    );
  });
});
