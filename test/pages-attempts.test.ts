// The stats pages' password limit against a flood: after ten wrong guesses an address stays
// locked out of that page while tens of thousands of wrong attempts on made-up domains come
// from it and from other addresses, and one address guessing across many domains is locked
// out of every page.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const PASSWORD = "the right one";

describe("stats page password limit under a flood", () => {
  let t: TestApp;
  let clock: ManualClock;
  const signIn = (domain: string, address: string, password: string) =>
    t.container.pageAccess.signIn(domain, address, { password });

  before(async () => {
    clock = new ManualClock("2026-06-01T08:00:00Z");
    t = await createTestApp({}, clock);
    const key = await t.createUser();
    for (const domain of ["vault.example", "other-vault.example"]) {
      const created = await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain, privacy: "2", password: PASSWORD },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(() => t?.close());

  it("keeps a lock while 60,000 wrong attempts on made-up domains come from the same and other addresses", async () => {
    const attacker = "198.51.100.66";
    for (let i = 0; i < 10; i++)
      assert.equal((await signIn("vault.example", attacker, `guess ${i}`)).state, "refused");
    assert.equal((await signIn("vault.example", attacker, PASSWORD)).state, "limited");

    let attempts = 0;
    for (let i = 0; i < 2_000; i++, attempts++) await signIn(`made-up-${i}.example`, attacker, "x");
    for (let a = 0; attempts < 62_000; a++) {
      const address = `10.1.${a >> 8}.${a & 255}`;
      for (let d = 0; d < 30; d++, attempts++) await signIn(`flood-${a}-${d}.example`, address, "x");
    }

    const after = await signIn("vault.example", attacker, PASSWORD);
    assert.equal(after.state, "limited", "the flood did not lift the lock");
    assert.equal(
      (await signIn("vault.example", "198.51.100.67", PASSWORD)).state,
      "granted",
      "others still may",
    );
  });

  it("locks an address that guesses across many domains out of every page", async () => {
    const sprayer = "203.0.113.44";
    const states: string[] = [];
    for (let d = 0; d < 40; d++) states.push((await signIn(`spray-${d}.example`, sprayer, "x")).state);
    const firstLimited = states.indexOf("limited");
    assert.ok(firstLimited > 0 && firstLimited <= 30, `limited from attempt ${firstLimited + 1}`);
    assert.ok(states.slice(firstLimited).every((state) => state === "limited"));
    assert.equal(
      (await signIn("other-vault.example", sprayer, PASSWORD)).state,
      "limited",
      "even the right password",
    );
    clock.advance(15 * 60_000);
    assert.equal((await signIn("other-vault.example", sprayer, PASSWORD)).state, "granted");
  });
});
