// Referrer host and primary language, remembered by input: the same answers on every call,
// also once the memory has started over.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { primaryLanguage, referrerHost } from "../src/enrich/referrer.js";

describe("referrer and language lookups", () => {
  it("gives the referrer's host without www, lowercase, and nothing for anything else", () => {
    const cases: [string | undefined, string][] = [
      ["https://www.Google.com/search?q=x", "google.com"],
      ["http://news.ycombinator.com./item", "news.ycombinator.com"],
      ["ftp://files.example/", ""],
      [`https://long.example/${"x".repeat(600)}`, "long.example"],
      ["not a url", ""],
      ["", ""],
      [undefined, ""],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [input, host] of cases) assert.equal(referrerHost(input), host, String(input));
    }
  });

  it("gives the first entry's primary subtag, and nothing for a malformed one", () => {
    const cases: [string | undefined, string][] = [
      ["en-US,en;q=0.9", "en"],
      ["pt_BR", "pt"],
      ["DE;q=0.8", "de"],
      ["*", ""],
      ["english", ""],
      [undefined, ""],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [input, language] of cases) assert.equal(primaryLanguage(input), language, String(input));
    }
  });

  it("answers the same after more distinct inputs than it remembers", () => {
    for (let i = 0; i < 25_000; i++) {
      assert.equal(referrerHost(`https://site${i}.example/page`), `site${i}.example`);
    }
    assert.equal(referrerHost("https://www.google.com/"), "google.com");
  });
});
