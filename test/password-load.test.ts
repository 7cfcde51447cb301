// A flood of password guesses must not take the thread pool the statistics need: scrypt runs
// a bounded few at a time, a bounded few more wait, and the rest are refused at once. The
// scrypt calls are counted (and held back while the flood arrives) by wrapping node's own.

import assert from "node:assert/strict";
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { after, before, describe, it } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { PASSWORD_HASH_PARAMS } from "../src/websites/password-hash.js";
import { HASH_CONCURRENCY, MAX_WAITING_HASHES } from "../src/websites/password-hasher.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const GUESSES = 60;
/** A generous bound on waiting for the flood to settle, so a broken build fails instead of hanging. */
const SETTLE_LIMIT_MS = 30_000;

/** Wraps crypto.scrypt: counts calls and the most running at once, and can hold new calls back. */
function watchScrypt() {
  const original = crypto.scrypt;
  const held: (() => void)[] = [];
  const watch = { calls: 0, running: 0, mostRunning: 0, holding: true, held, release, restore };
  function release() {
    watch.holding = false;
    for (const start of held.splice(0)) start();
  }
  function restore() {
    crypto.scrypt = original;
    syncBuiltinESMExports();
  }
  crypto.scrypt = ((...args: unknown[]) => {
    const callback = args.pop() as (error: Error | null, key: Buffer) => void;
    watch.calls += 1;
    watch.running += 1;
    watch.mostRunning = Math.max(watch.mostRunning, watch.running);
    const start = () =>
      (original as (...a: unknown[]) => void)(...args, (error: Error | null, key: Buffer) => {
        watch.running -= 1;
        callback(error, key);
      });
    if (watch.holding) held.push(start);
    else start();
  }) as typeof crypto.scrypt;
  syncBuiltinESMExports();
  return watch;
}

describe("password checks under a flood of guesses", () => {
  let t: TestApp;
  let key: string;
  let websiteId: number;

  before(async () => {
    // At the servers' own cost: the flood is of real hashes.
    t = await createTestApp({}, undefined, { passwordCost: PASSWORD_HASH_PARAMS });
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "guarded.example", privacy: "2", password: "right one" },
    });
    assert.equal(created.statusCode, 201, created.body);
    websiteId = created.json().data.id;
  });
  after(() => t?.close());

  it("runs a bounded number of scrypt at once, refuses the excess at once, and statistics still answer", async () => {
    const scrypt = watchScrypt();
    try {
      const answers: LightMyRequestResponse[] = [];
      const guesses = Array.from({ length: GUESSES }, (_, i) =>
        t.app
          .inject({
            method: "POST",
            url: "/guarded.example",
            remoteAddress: `10.9.${i >> 8}.${i & 255}`,
            headers: { "content-type": "application/x-www-form-urlencoded" },
            payload: `password=guess-${i}`,
          })
          .then((answer) => {
            answers.push(answer);
            return answer;
          }),
      );
      // Wait until every guess is answered, running (held) or waiting for its turn.
      const waiting = () => t.container.passwords?.load.waiting ?? 0;
      const started = Date.now();
      while (answers.length + scrypt.held.length + waiting() < GUESSES) {
        assert.ok(Date.now() - started < SETTLE_LIMIT_MS, "the guesses never settled");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.ok(scrypt.held.length <= HASH_CONCURRENCY, `${scrypt.held.length} scrypt at once`);
      assert.ok(waiting() <= MAX_WAITING_HASHES, `${waiting()} waiting`);
      assert.equal(
        answers.length,
        GUESSES - scrypt.held.length - waiting(),
        "the rest were answered at once",
      );
      for (const refused of answers) {
        assert.equal(refused.statusCode, 503);
        assert.equal(refused.headers["retry-after"], "1");
        assert.ok(refused.body.includes('name="password"'), "the form is shown again");
      }

      // Meanwhile the statistics answer, and a new password is refused, not queued.
      const stats = await t.call(key, {
        url: `/api/v1/stats/${websiteId}?name=pageviews&from=2026-01-01&to=2026-01-31`,
      });
      assert.equal(stats.statusCode, 200, stats.body);
      const update = await t.call(key, {
        method: "PUT",
        url: `/api/v1/websites/${websiteId}`,
        form: { password: "a new one" },
      });
      assert.equal(update.statusCode, 503);
      assert.equal(update.json().status, 503);
      assert.equal(update.headers["retry-after"], "1");

      scrypt.release();
      const all = await Promise.all(guesses);
      const checked = all.filter((answer) => answer.statusCode === 401).length;
      assert.equal(checked + all.filter((answer) => answer.statusCode === 503).length, GUESSES);
      assert.equal(scrypt.calls, checked, "one scrypt per checked guess, none for a refused one");
      assert.ok(scrypt.mostRunning <= HASH_CONCURRENCY, `at most ${scrypt.mostRunning} at once`);
    } finally {
      scrypt.restore();
    }
    // The refused guesses counted for nothing: the right password still opens the page.
    const right = await t.app.inject({
      method: "POST",
      url: "/guarded.example",
      remoteAddress: "10.9.0.0",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "password=right one",
    });
    assert.equal(right.statusCode, 303);
  });
});
