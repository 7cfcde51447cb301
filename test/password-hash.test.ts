// Website password hashes: new ones at scrypt N = 2^17 with their parameters in the stored
// text; ones stored by earlier versions at N = 2^14 still verify with their own parameters,
// on their own and on a stats page.

import assert from "node:assert/strict";
import { randomBytes, scryptSync } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  hashPassword,
  PASSWORD_HASH_PARAMS,
  unmatchableHash,
  verifyPassword,
} from "../src/websites/password-hash.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const NEW_FORMAT = /^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/;

/** A hash in the stored format as earlier versions wrote it: scrypt$16384$8$1$salt$key. */
function earlierHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFC"), salt, 32, { N: 16_384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

describe("website password hashes", () => {
  it("hashes new passwords at N = 2^17, r = 8, p = 1, and verifies earlier ones at N = 2^14", async () => {
    const stored = await hashPassword("correct horse");
    assert.match(stored, NEW_FORMAT, "the stored text names its parameters");
    assert.notEqual(await hashPassword("correct horse"), stored, "salted: two hashes differ");
    assert.equal(await verifyPassword("correct horse", stored), true);
    assert.equal(await verifyPassword("correct horse!", stored), false);

    const earlier = earlierHash("open sesame");
    assert.equal(await verifyPassword("open sesame", earlier), true, "verified with its own parameters");
    assert.equal(await verifyPassword("open sesame ", earlier), false);
  });

  it("refuses stored text it cannot read, and parameters beyond its memory bound", async () => {
    const good = earlierHash("x");
    for (const stored of [
      "",
      "plain text",
      good.replace("scrypt$", "bcrypt$"),
      `${good}$extra`,
      good.replace("$16384$", "$abc$"),
      good.replace("$16384$", "$0$"),
      good.replace("$16384$8$", "$16777216$8$"), // 16 GiB of memory
    ]) {
      assert.equal(await verifyPassword("x", stored), false, stored);
    }
  });

  it("hashes at another cost when told, and has a hash of each cost that no password opens", async () => {
    const cheap = { N: 1024, r: 8, p: 2 };
    const stored = await hashPassword("correct horse", cheap);
    assert.match(stored, /^scrypt\$1024\$8\$2\$/);
    assert.equal(await verifyPassword("correct horse", stored), true);
    assert.match(unmatchableHash(), NEW_FORMAT, "checked at the servers' own cost by default");
    assert.match(unmatchableHash(cheap), /^scrypt\$1024\$8\$2\$A{22}\$A{43}$/);
    for (const password of ["", "correct horse", "\0"])
      assert.equal(await verifyPassword(password, unmatchableHash(cheap)), false, password);
  });
});

describe("a stats page's password, hashed at either cost", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, undefined, { passwordCost: PASSWORD_HASH_PARAMS }); // the servers' own
  });
  after(() => t.close());

  it("is stored at the new cost and still opens the page when an earlier version stored it", async () => {
    const user = await t.container.users.create({ email: "earlier-hash@example.org" });
    const created = await t.call(user.apiKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "earlier-hash.example", privacy: "2", password: "set today" },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id;
    const stored = await t.container.metadata.websites.findById(id);
    assert.match(stored?.passwordHash ?? "", NEW_FORMAT);
    const post = (password: string) =>
      t.app.inject({
        method: "POST",
        url: "/earlier-hash.example",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ password }).toString(),
      });
    assert.equal((await post("set today")).statusCode, 303);

    // As an earlier version stored it: the page opens to that password, with its own cost.
    await t.container.metadata.websites.update(
      user.user.id,
      id,
      { passwordHash: earlierHash("from before") },
      new Date(),
    );
    assert.equal((await post("set today")).statusCode, 401);
    const right = await post("from before");
    assert.equal(right.statusCode, 303, right.body);
    assert.match(String(right.headers["set-cookie"]), /^analytics_page=1\./);
  });
});
