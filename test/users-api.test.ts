// /api/v1/users: what `users create --admin` means. An administrator lists users and creates
// them (each with its first API key, shown once); anyone else gets a 403 in the contract's
// shape, and bad input the usual 422.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { runCli } from "./support/cli.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { freshMetadata } from "./support/test-metadata.js";

describe("users API", () => {
  let t: TestApp;
  let adminKey: string;
  let userKey: string;

  before(async () => {
    t = await createTestApp();
    adminKey = (await t.container.users.create({ email: "root@example.org", admin: true })).apiKey;
    userKey = await t.createUser("plain@example.org");
  });
  after(() => t.close());

  it("refuses anyone but an administrator", async () => {
    for (const request of [
      { url: "/api/v1/users" },
      { method: "POST" as const, url: "/api/v1/users", form: { email: "x@example.org" } },
    ]) {
      const response = await t.call(userKey, request);
      assert.equal(response.statusCode, 403, response.body);
      assert.deepEqual(response.json(), { message: "This action is unauthorized.", status: 403 });
      assert.equal((await t.call(null, request)).statusCode, 401);
    }
    assert.equal((await t.container.keys.authenticate(userKey))?.user.isAdmin, false);
  });

  it("lets an administrator create users, each with a working key shown once", async () => {
    const created = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: " New@Example.org ", name: "New" },
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.deepEqual(Object.keys(body).sort(), ["api_key", "data", "status"]);
    assert.equal(body.data.email, "new@example.org");
    assert.equal(body.data.name, "New");
    assert.equal(body.data.admin, false);
    assert.equal((await t.call(body.api_key, { url: "/api/v1/websites" })).statusCode, 200);
    assert.equal(
      (await t.call(body.api_key, { url: "/api/v1/users" })).statusCode,
      403,
      "not an administrator",
    );

    const admin = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      json: { email: "second-admin@example.org", admin: 1 },
    });
    assert.equal(admin.statusCode, 201, admin.body);
    assert.equal(admin.json().data.admin, true);
    assert.equal((await t.call(admin.json().api_key, { url: "/api/v1/users" })).statusCode, 200);
  });

  it("reports every invalid field", async () => {
    const duplicate = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: "plain@example.org" },
    });
    assert.equal(duplicate.statusCode, 422);
    assert.deepEqual(duplicate.json().message, { email: ["The email has already been taken."] });
    const bad = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: "not an email", admin: "2" },
    });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(Object.keys(bad.json().message).sort(), ["admin", "email"], bad.body);
    const badEmail = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: "nope" },
    });
    assert.deepEqual(badEmail.json().message, { email: ["The email must be a valid email address."] });
    // Longer than mail carries (and than the pattern is quick to check): refused by its length.
    const longEmail = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: `a@${".".repeat(100_000)}` },
    });
    assert.deepEqual(longEmail.json().message, {
      email: [
        "The email must not be greater than 320 characters (UTF-16 code units: an emoji counts as 2 or more).",
      ],
    });
    // Control characters (PostgreSQL cannot store a NUL: these were a 500 there, stored on SQLite).
    const control = await t.call(adminKey, {
      method: "POST",
      url: "/api/v1/users",
      form: { email: "nul\u0000@example.org", name: "bell \u0007 name" },
    });
    assert.equal(control.statusCode, 422, control.body);
    assert.deepEqual(control.json().message, {
      email: ["The email must be a valid email address."],
      name: ["The name must not contain control characters."],
    });
  });

  it("lists every user, newest first, in pages", async () => {
    for (let i = 0; i < 9; i++) await t.createUser(`listed${i}@example.org`);
    const first = await t.call(adminKey, { url: "/api/v1/users?per_page=10" });
    assert.equal(first.statusCode, 200, first.body);
    const body = first.json();
    const total = (await t.container.metadata.users.list(1000, 0)).total;
    assert.equal(body.meta.total, total);
    assert.ok(total > 10);
    assert.equal(body.data.length, 10);
    assert.equal(body.data[0].email, "listed8@example.org");
    assert.ok(body.links.next.endsWith("per_page=10&page=2"));
    const ids = body.data.map((user: { id: number }) => user.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => b - a),
    );
    assert.equal(
      body.data.find((user: { email: string }) => user.email === "root@example.org"),
      undefined,
    );
    const last = (await t.call(adminKey, { url: "/api/v1/users?per_page=10&page=2" })).json();
    assert.ok(
      last.data.some(
        (user: { email: string; admin: boolean }) => user.email === "root@example.org" && user.admin,
      ),
    );
    assert.equal((await t.call(adminKey, { url: "/api/v1/users?per_page=7" })).statusCode, 422);
  });
});

describe("analytics users create --admin", () => {
  it("makes a user whose key may manage users", async () => {
    const metadata = await freshMetadata();
    const dataDir = tempDir();
    try {
      const cli = (email: string, ...flags: string[]) =>
        runCli(["users", "create", "--email", email, ...flags, "--data-dir", dataDir], metadata.env);
      const admin = cli("cli-admin@example.org", "--admin");
      assert.equal(admin.status, 0, admin.stderr);
      assert.match(admin.stdout, /\(admin\)/);
      const plain = cli("cli-user@example.org");
      assert.equal(plain.status, 0, plain.stderr);
      const app = await createTestApp({}, undefined, { stores: { dataDir, metadataEnv: metadata.env } });
      try {
        assert.equal((await app.call(admin.lastLine, { url: "/api/v1/users" })).statusCode, 200);
        assert.equal((await app.call(plain.lastLine, { url: "/api/v1/users" })).statusCode, 403);
      } finally {
        await app.close();
      }
    } finally {
      await metadata.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
