// API keys: random, stored only as a hash, matched exactly.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { issueApiKey, keyIdOf, keyMatches } from "../src/accounts/api-keys.js";

describe("API keys", () => {
  it("are long, random, and stored only as a hash", () => {
    const keys = Array.from({ length: 100 }, issueApiKey);
    assert.equal(new Set(keys.map((k) => k.key)).size, 100);
    for (const issued of keys) {
      assert.match(issued.key, /^ak_[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
      assert.equal(keyIdOf(issued.key), issued.keyId);
      assert.ok(!issued.keyHash.includes(issued.key.slice(19)));
      assert.match(issued.keyHash, /^[0-9a-f]{64}$/);
    }
  });

  it("match only the exact key", () => {
    const { key, keyHash } = issueApiKey();
    assert.equal(keyMatches(key, keyHash), true);
    assert.equal(keyMatches(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`, keyHash), false);
    assert.equal(keyMatches(key, "00"), false);
    assert.equal(keyIdOf(`${key} `), null);
    assert.equal(keyIdOf("ak_short"), null);
  });
});
