// The sign-in attempt limiter on its own: a lock holds however many other addresses and
// targets are tracked, an address spraying many targets is locked out of all of them, memory
// stays bounded, and attempts sent together cannot slip past the count.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import {
  ATTEMPT_WINDOW_MS,
  AttemptLimiter,
  MAX_WRONG_ATTEMPTS,
  MAX_WRONG_PER_ADDRESS,
  STATS_PAGE_RULES,
  sourceOf,
} from "../src/sign-in/attempt-limiter.js";

/** `n` wrong attempts; the number of them that were let through. */
function fail(limiter: AttemptLimiter, address: string, target: string, n = 1): number {
  let allowed = 0;
  for (let i = 0; i < n; i++) if (limiter.begin(address, target) === 0) allowed += 1;
  return allowed;
}

describe("sign-in attempt limiter", () => {
  it("keeps a lock while 60,000 wrong attempts on made-up targets come from it and from others", () => {
    const clock = new ManualClock("2026-06-01T00:00:00Z");
    const limiter = new AttemptLimiter(clock);
    assert.equal(fail(limiter, "198.51.100.1", "real.example", MAX_WRONG_ATTEMPTS), MAX_WRONG_ATTEMPTS);
    assert.ok(limiter.begin("198.51.100.1", "real.example") > 0, "locked after ten");
    // Another address that is one attempt short of its lock must not be pushed out either.
    assert.equal(
      fail(limiter, "198.51.100.2", "real.example", MAX_WRONG_ATTEMPTS - 1),
      MAX_WRONG_ATTEMPTS - 1,
    );

    let attempts = 0;
    for (let i = 0; i < 5_000; i++, attempts++) limiter.begin("198.51.100.1", `made-up-${i}.example`);
    for (let a = 0; attempts < 65_000; a++) {
      const address = `10.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}`;
      for (let d = 0; d < MAX_WRONG_PER_ADDRESS; d++, attempts++)
        limiter.begin(address, `made-up-${a}-${d}.example`);
    }

    assert.ok(limiter.begin("198.51.100.1", "real.example") > 0, "the lock holds");
    assert.ok(limiter.begin("198.51.100.2", "real.example") === 0, "its tenth attempt is let through");
    assert.ok(limiter.begin("198.51.100.2", "real.example") > 0, "and then it is locked");
    assert.ok(limiter.tracked <= 2 * STATS_PAGE_RULES.capacity, `tracked ${limiter.tracked}`);
    clock.advance(ATTEMPT_WINDOW_MS);
    assert.equal(limiter.begin("198.51.100.1", "real.example"), 0, "until the window ends");
  });

  it("locks an address that sprays many targets out of every target", () => {
    const clock = new ManualClock("2026-06-01T00:00:00Z");
    const limiter = new AttemptLimiter(clock);
    for (let d = 0; d < MAX_WRONG_PER_ADDRESS; d++) {
      assert.equal(limiter.begin("203.0.113.9", `spray-${d}.example`), 0, `attempt ${d + 1}`);
    }
    const wait = limiter.begin("203.0.113.9", "one-more.example");
    assert.ok(wait > 0 && wait <= ATTEMPT_WINDOW_MS / 1000, `Retry-After ${wait}`);
    assert.ok(limiter.begin("203.0.113.9", "real.example") > 0, "also a target it never tried");
    assert.equal(limiter.begin("203.0.113.10", "real.example"), 0, "another address is not affected");
    clock.advance(ATTEMPT_WINDOW_MS);
    assert.equal(limiter.begin("203.0.113.9", "real.example"), 0);
  });

  it("counts an attempt from its start, so attempts sent together cannot all pass", () => {
    const limiter = new AttemptLimiter(new ManualClock("2026-06-01T00:00:00Z"));
    const started = Array.from({ length: 50 }, () => limiter.begin("192.0.2.1", "real.example"));
    assert.equal(started.filter((wait) => wait === 0).length, MAX_WRONG_ATTEMPTS);
  });

  it("forgets a pair's failures on success, and an attempt that was never checked", () => {
    const limiter = new AttemptLimiter(new ManualClock("2026-06-01T00:00:00Z"));
    fail(limiter, "192.0.2.2", "real.example", MAX_WRONG_ATTEMPTS - 1);
    limiter.begin("192.0.2.2", "real.example");
    limiter.succeeded("192.0.2.2", "real.example");
    assert.equal(fail(limiter, "192.0.2.2", "real.example", MAX_WRONG_ATTEMPTS), MAX_WRONG_ATTEMPTS);
    assert.ok(limiter.begin("192.0.2.2", "real.example") > 0);

    fail(limiter, "192.0.2.3", "real.example", MAX_WRONG_ATTEMPTS);
    limiter.withdrawn("192.0.2.3", "real.example");
    assert.equal(limiter.begin("192.0.2.3", "real.example"), 0, "the withdrawn one left room for one more");
    assert.ok(limiter.begin("192.0.2.3", "real.example") > 0);
  });

  it("stays within its capacity, and when every entry is a live lock refuses new addresses until one ends", () => {
    const clock = new ManualClock("2026-06-01T00:00:00Z");
    const rules = { perTarget: 2, perAddress: 1_000, windowMs: 60_000, capacity: 100 };
    const limiter = new AttemptLimiter(clock, rules);
    for (let i = 0; i < 100; i++) fail(limiter, `192.0.2.${i}`, "real.example", 2);
    assert.ok(limiter.begin("192.0.2.0", "real.example") > 0);
    clock.advance(1_000);
    const wait = limiter.begin("198.51.100.77", "real.example");
    assert.equal(wait, 59, "a new address waits for the first lock to end");
    assert.ok(limiter.tracked <= 2 * rules.capacity);
    for (let i = 0; i < 100; i++)
      assert.ok(limiter.begin(`192.0.2.${i}`, "real.example") > 0, "no lock was lost");
    clock.advance(59_000);
    assert.equal(limiter.begin("198.51.100.77", "real.example"), 0);

    // Unlocked entries make room for new ones, fewest failures first.
    const roomy = new AttemptLimiter(clock, { ...rules, perTarget: 5 });
    fail(roomy, "192.0.2.200", "real.example", 4);
    for (let i = 0; i < 10_000; i++) roomy.begin(`10.0.${i >> 8}.${i & 255}`, `t${i}.example`);
    assert.ok(roomy.tracked <= 2 * rules.capacity, `tracked ${roomy.tracked}`);
    assert.equal(roomy.begin("192.0.2.200", "real.example"), 0, "its fifth attempt");
    assert.ok(roomy.begin("192.0.2.200", "real.example") > 0, "its four earlier ones were kept");
  });

  it("counts an IPv6 address's /64 as one address", () => {
    const limiter = new AttemptLimiter(new ManualClock("2026-06-01T00:00:00Z"));
    for (let i = 1; i <= MAX_WRONG_ATTEMPTS; i++) {
      assert.equal(limiter.begin(`2001:db8:1:2::${i.toString(16)}`, "real.example"), 0);
    }
    assert.ok(limiter.begin("2001:db8:1:2:ffff:ffff:ffff:ffff", "real.example") > 0);
    assert.equal(limiter.begin("2001:db8:1:3::1", "real.example"), 0);
    assert.equal(sourceOf("2001:DB8:0:0:1::1"), "2001:db8:0:0::/64");
    assert.equal(sourceOf("::1"), "0:0:0:0::/64");
    assert.equal(sourceOf("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(sourceOf("::ffff:192.0.2.1"), "192.0.2.1");
    assert.equal(sourceOf("192.0.2.1"), "192.0.2.1");
  });
});
