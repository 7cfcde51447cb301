// The websites resource: create, read, update, delete, their defaults, normalisation,
// validation messages and the isolation between users (CONTRACT.md section 3).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { verifyPassword } from "../src/websites/password-hash.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe("websites API", () => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock("2024-01-15T10:20:30.123Z");

  before(async () => {
    t = await createTestApp({}, clock);
    key = await t.createUser();
  });
  after(() => t.close());

  const create = (form: Record<string, string>, apiKey = key) =>
    t.call(apiKey, { method: "POST", url: "/api/v1/websites", form });
  const update = (id: number, form: Record<string, string>, apiKey = key) =>
    t.call(apiKey, { method: "PUT", url: `/api/v1/websites/${id}`, form });

  it("creates a website with the documented defaults and shape", async () => {
    const response = await create({ domain: "defaults.example" });
    assert.equal(response.statusCode, 201);
    assert.match(String(response.headers["content-type"]), /^application\/json; charset=utf-8/);
    const body = response.json();
    assert.equal(body.status, 201);
    assert.deepEqual(Object.keys(body.data), [
      "id",
      "domain",
      "domain_unicode",
      "privacy",
      "password",
      "email",
      "exclude_bots",
      "exclude_datacenters",
      "exclude_params",
      "exclude_ips",
      "timezone",
      "created_at",
      "updated_at",
    ]);
    assert.ok(Number.isInteger(body.data.id) && body.data.id > 0);
    assert.equal(body.data.domain, "defaults.example");
    assert.equal(body.data.domain_unicode, "defaults.example");
    assert.equal(body.data.privacy, 1);
    assert.equal(body.data.password, false);
    assert.equal(body.data.email, 0);
    assert.equal(body.data.exclude_bots, 1);
    assert.equal(body.data.exclude_datacenters, 1, "on for a new website");
    assert.equal(body.data.exclude_params, null);
    assert.equal(body.data.exclude_ips, null);
    assert.equal(body.data.timezone, "UTC");
    assert.equal(body.data.created_at, "2024-01-15T10:20:30.123000Z");
    assert.match(body.data.updated_at, TIMESTAMP);
  });

  it("normalises the domain: case, scheme, www., trailing slash, punycode", async () => {
    const cases: [string, string][] = [
      ["HTTPS://WWW.Normalise.Example/", "normalise.example"],
      ["http://shop.normalise.example", "shop.normalise.example"],
      ["  spaced.example  ", "spaced.example"],
      ["münchen-normalise.de", "xn--mnchen-normalise-jzb.de"],
      ["192.0.2.10", "192.0.2.10"],
    ];
    for (const [input, expected] of cases) {
      const response = await create({ domain: input });
      assert.equal(response.statusCode, 201, `${input}: ${response.body}`);
      assert.equal(response.json().data.domain, expected, input);
    }
  });

  it("rejects domains that are not a bare host, naming the problem", async () => {
    const cases: [string, RegExp][] = [
      ["", /required/],
      ["example.com/blog", /path/],
      ["example.com:8080", /port/],
      ["example.com?x=1", /query/],
      ["user@example.com", /user info/],
      ["exa mple.com", /spaces/],
      ["localhost", /valid domain/],
      ["-bad.example", /valid domain/],
      ["example.123", /valid domain/],
      [`${"a".repeat(64)}.example`, /valid domain/],
      [`${"abcdefghi.".repeat(26)}com`, /253/],
      ["ftp://example.com", /scheme/],
    ];
    for (const [input, message] of cases) {
      const response = await create({ domain: input });
      assert.equal(response.statusCode, 422, input);
      const body = response.json();
      assert.equal(body.status, 422);
      assert.match(body.message.domain.join(" "), message, input);
    }
  });

  it("keeps domains unique across users", async () => {
    assert.equal((await create({ domain: "taken.example" })).statusCode, 201);
    const other = await t.createUser();
    const response = await create({ domain: "https://www.TAKEN.example" }, other);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      message: { domain: ["The domain has already been taken."] },
      status: 422,
    });
  });

  it("reports every invalid field at once with the allowed values", async () => {
    const response = await create({
      domain: "bad domain",
      privacy: "5",
      email: "yes",
      exclude_bots: "2",
      exclude_datacenters: "yes",
      exclude_ips: "10.0.0.1, 300.1.1.1, 10.0.0.0/40",
      exclude_params: "utm source",
      password: "x".repeat(129),
    });
    assert.equal(response.statusCode, 422);
    const { message } = response.json();
    assert.deepEqual(Object.keys(message).sort(), [
      "domain",
      "email",
      "exclude_bots",
      "exclude_datacenters",
      "exclude_ips",
      "exclude_params",
      "password",
      "privacy",
    ]);
    assert.deepEqual(message.exclude_datacenters, ["The exclude datacenters must be one of: 0, 1."]);
    assert.deepEqual(message.privacy, ["The privacy must be one of: 0, 1, 2."]);
    assert.deepEqual(message.email, ["The email must be one of: 0, 1."]);
    assert.deepEqual(message.exclude_ips, [
      'The exclude ips entry "300.1.1.1" is not a valid IP address or CIDR block.',
      'The exclude ips entry "10.0.0.0/40" is not a valid IP address or CIDR block.',
    ]);
    assert.match(message.exclude_params[0], /"utm source"/);
    assert.deepEqual(message.password, [
      "The password must not be greater than 128 characters (UTF-16 code units: an emoji counts as 2 or more).",
    ]);
  });

  it("accepts integers as form strings and rejects anything that is not plain digits", async () => {
    const ok = await create({ domain: "ints.example", privacy: "0", email: "1", exclude_bots: "0" });
    assert.equal(ok.statusCode, 201);
    assert.deepEqual([ok.json().data.privacy, ok.json().data.email, ok.json().data.exclude_bots], [0, 1, 0]);
    for (const privacy of ["2.5", "abc", "-1", "1e0", "0x1", " 1", "", "null", "true"]) {
      const response = await create({ domain: "ints2.example", privacy });
      assert.equal(response.statusCode, 422, `privacy=${JSON.stringify(privacy)}`);
      assert.deepEqual(response.json().message, { privacy: ["The privacy must be one of: 0, 1, 2."] });
    }
  });

  it("accepts JSON bodies but not null or booleans for integer fields", async () => {
    const ok = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      json: { domain: "json.example", privacy: 0, exclude_ips: "2001:DB8::/32" },
    });
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().data.exclude_ips, "2001:db8::/32");
    const bad = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      json: { domain: "json2.example", privacy: null, email: true },
    });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(Object.keys(bad.json().message).sort(), ["email", "privacy"]);
  });

  it("requires a password for privacy 2 and stores only a scrypt hash", async () => {
    const missing = await create({ domain: "secret.example", privacy: "2" });
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(missing.json().message, {
      password: ["The password field is required when privacy is 2 (Password)."],
    });
    const created = await create({ domain: "secret.example", privacy: "2", password: "hunter2" });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().data.password, true);
    assert.ok(!created.body.includes("hunter2"));
    const stored = await t.container.metadata.websites.findByDomain("secret.example");
    const hash = stored?.passwordHash ?? "";
    assert.ok(hash.startsWith("scrypt$"), hash);
    assert.ok(!hash.includes("hunter2"));
    assert.equal(await verifyPassword("hunter2", hash), true);
    assert.equal(await verifyPassword("hunter3", hash), false);
  });

  it("normalises the exclusion lists: newlines or commas, one per line, no duplicates", async () => {
    const response = await create({
      domain: "lists.example",
      exclude_ips: "10.0.0.0/8\n192.168.1.1, 10.0.0.0/8\r\n\n::1,2001:DB8::1/128",
      exclude_params: "utm_source\nfbclid, utm_source,&",
    });
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().data.exclude_ips, "10.0.0.0/8\n192.168.1.1\n::1\n2001:db8::1/128");
    assert.equal(response.json().data.exclude_params, "utm_source\nfbclid\n&");
  });

  it("limits the exclusion lists to 1,000 entries", async () => {
    const ips = Array.from({ length: 1001 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`).join("\n");
    const response = await create({ domain: "many.example", exclude_ips: ips });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json().message.exclude_ips, [
      "The exclude ips must not have more than 1000 entries.",
    ]);
    const thousand = ips.split("\n").slice(0, 1000).join("\n");
    assert.equal((await create({ domain: "many.example", exclude_ips: thousand })).statusCode, 201);
  });

  it("reads a website by id", async () => {
    const id = (await create({ domain: "read.example" })).json().data.id;
    const response = await t.call(key, { url: `/api/v1/websites/${id}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().status, 200);
    assert.equal(response.json().data.domain, "read.example");
    // One form per id: with a leading zero it names no website.
    assert.equal(
      (await t.call(key, { url: `/api/v1/websites/${String(id).padStart(5, "0")}` })).statusCode,
      404,
    );
  });

  it("updates only the fields sent and ignores the domain", async () => {
    const created = (
      await create({ domain: "update.example", exclude_ips: "10.0.0.1", exclude_params: "ref", email: "1" })
    ).json().data;
    clock.advance(5_000);
    const response = await update(created.id, {
      exclude_bots: "0",
      exclude_datacenters: "0",
      domain: "other.example",
    });
    assert.equal(response.statusCode, 200);
    const updated = response.json().data;
    assert.equal(updated.domain, "update.example");
    assert.equal(updated.exclude_bots, 0);
    assert.equal(updated.exclude_datacenters, 0);
    assert.equal(updated.email, 1);
    assert.equal(updated.exclude_ips, "10.0.0.1");
    assert.equal(updated.exclude_params, "ref");
    assert.equal(updated.created_at, created.created_at);
    assert.notEqual(updated.updated_at, created.updated_at);
  });

  it("keeps the time zone of the statistics: an IANA name, in its canonical spelling", async () => {
    const created = await create({ domain: "zoned.example", timezone: "america/new_york" });
    assert.equal(created.statusCode, 201, created.body);
    const { id, timezone } = created.json().data;
    assert.equal(timezone, "America/New_York");
    const changed = await update(id, { timezone: "Asia/Kolkata" });
    assert.equal(changed.json().data.timezone, "Asia/Kolkata");
    assert.equal(
      (await update(id, { email: "1" })).json().data.timezone,
      "Asia/Kolkata",
      "kept when not sent",
    );
    for (const bad of ["Mars/Olympus", "+05:00", ""]) {
      const refused = await update(id, { timezone: bad });
      assert.equal(refused.statusCode, 422, bad);
      assert.deepEqual(refused.json().message, {
        timezone: [
          "The timezone must be a time zone name of the IANA database, such as Europe/Berlin or UTC.",
        ],
      });
    }
    const refused = await create({ domain: "zoned2.example", timezone: "Europe/Nowhere" });
    assert.equal(refused.statusCode, 422);
    assert.ok(refused.json().message.timezone);
  });

  it("clears a list or the password when sent empty", async () => {
    const { id } = (
      await create({ domain: "clear.example", exclude_ips: "10.0.0.1", password: "pw", privacy: "1" })
    ).json().data;
    const response = await update(id, { exclude_ips: "", password: "" });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().data.exclude_ips, null);
    assert.equal(response.json().data.password, false);
  });

  it("applies the password rules of privacy 2 on update", async () => {
    const { id } = (await create({ domain: "switch.example" })).json().data;
    const without = await update(id, { privacy: "2" });
    assert.equal(without.statusCode, 422);
    assert.deepEqual(Object.keys(without.json().message), ["password"]);
    assert.equal((await update(id, { privacy: "2", password: "s3cret" })).statusCode, 200);
    // A stored password is enough to stay on (or switch back to) privacy 2.
    assert.equal((await update(id, { privacy: "1" })).statusCode, 200);
    assert.equal((await update(id, { privacy: "2" })).statusCode, 200);
    const clearing = await update(id, { password: "" });
    assert.equal(clearing.statusCode, 422);
    assert.deepEqual(clearing.json().message, {
      password: ["The password field is required when privacy is 2 (Password)."],
    });
    const cleared = await update(id, { password: "", privacy: "0" });
    assert.equal(cleared.statusCode, 200);
    assert.equal(cleared.json().data.password, false);
  });

  it("validates update fields like create fields", async () => {
    const { id } = (await create({ domain: "validate-update.example" })).json().data;
    const response = await update(id, { privacy: "7", exclude_ips: "nope" });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(Object.keys(response.json().message).sort(), ["exclude_ips", "privacy"]);
  });

  it("deletes a website; afterwards it is gone", async () => {
    const { id } = (await create({ domain: "delete.example" })).json().data;
    const response = await t.call(key, { method: "DELETE", url: `/api/v1/websites/${id}` });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { id, object: "website", deleted: true, status: 200 });
    assert.equal((await t.call(key, { url: `/api/v1/websites/${id}` })).statusCode, 404);
    assert.equal((await t.call(key, { method: "DELETE", url: `/api/v1/websites/${id}` })).statusCode, 404);
    // The domain is free again.
    assert.equal((await create({ domain: "delete.example" })).statusCode, 201);
  });

  it("assigns ids in creation order and never reuses a deleted id", async () => {
    const first = (await create({ domain: "order1.example" })).json().data.id;
    const second = (await create({ domain: "order2.example" })).json().data.id;
    assert.ok(second > first);
    await t.call(key, { method: "DELETE", url: `/api/v1/websites/${second}` });
    const third = (await create({ domain: "order3.example" })).json().data.id;
    assert.ok(third > second);
  });

  it("answers 404 for ids that are not positive decimal integers", async () => {
    for (const id of ["abc", "1e3", "-1", "0", "1.5", "9999999999999999999", "%00", "1%20"]) {
      for (const method of ["GET", "PUT", "DELETE"] as const) {
        const response = await t.call(key, { method, url: `/api/v1/websites/${id}`, form: { privacy: "0" } });
        assert.equal(response.statusCode, 404, `${method} ${id}`);
        assert.deepEqual(response.json(), { message: "Resource not found.", status: 404 });
      }
    }
  });
});

describe("websites of another user", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("cannot be seen, listed, changed or deleted: they answer exactly like missing ones", async () => {
    const alice = await t.createUser("alice@example.org");
    const bob = await t.createUser("bob@example.org");
    const created = await t.call(alice, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "alice.example" },
    });
    const { id } = created.json().data;
    const missing = 999_999;
    for (const target of [id, missing]) {
      const reads = [
        await t.call(bob, { url: `/api/v1/websites/${target}` }),
        await t.call(bob, { method: "PUT", url: `/api/v1/websites/${target}`, form: { privacy: "0" } }),
        await t.call(bob, { method: "DELETE", url: `/api/v1/websites/${target}` }),
      ];
      for (const response of reads) {
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { message: "Resource not found.", status: 404 });
      }
    }
    const list = await t.call(bob, { url: "/api/v1/websites" });
    assert.deepEqual(list.json().data, []);
    assert.equal(list.json().meta.total, 0);
    assert.equal(list.json().meta.last_page, 1, "an empty list still has one (empty) page");
    assert.equal(list.json().links.next, null);
    const own = await t.call(alice, { url: `/api/v1/websites/${id}` });
    assert.equal(own.json().data.privacy, 1, "Bob's PUT changed nothing");
  });
});
