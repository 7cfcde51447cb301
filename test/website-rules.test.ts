// Unit tables for the website text rules: domain normalisation and the exclusion lists.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normaliseDomain } from "../src/websites/domain-name.js";
import { normaliseIpEntry, parseIpList, parseParamList } from "../src/websites/exclusion-lists.js";

describe("normaliseDomain", () => {
  it("accepts and normalises", () => {
    const table: [string, string][] = [
      ["example.com", "example.com"],
      ["EXAMPLE.COM", "example.com"],
      ["https://example.com", "example.com"],
      ["http://www.example.com/", "example.com"],
      ["www.example.com", "example.com"],
      ["sub.www.example.com", "sub.www.example.com"],
      ["a-b.c-d.example", "a-b.c-d.example"],
      ["xn--mnchen-3ya.de", "xn--mnchen-3ya.de"],
      ["München.DE", "xn--mnchen-3ya.de"],
      ["例え.jp", "xn--r8jz45g.jp"],
      ["10.0.0.1", "10.0.0.1"],
      ["1.example", "1.example"],
      [`${"a".repeat(63)}.example`, `${"a".repeat(63)}.example`],
    ];
    for (const [input, expected] of table) {
      assert.deepEqual(normaliseDomain(input), { ok: true, value: expected }, input);
    }
  });

  it("rejects with a reason", () => {
    const table = [
      "",
      "   ",
      "example",
      "example.",
      ".example.com",
      "exa_mple.com",
      "example-.com",
      "example.com/path",
      "example.com:443",
      "https://user:pw@example.com",
      "example.com#x",
      "example.com?x",
      "exa mple.com",
      "example.42",
      "256.1.1.1.1",
      "[::1]",
      "::1",
      "javascript://example.com",
      `${"a".repeat(64)}.com`,
    ];
    for (const input of table) {
      const result = normaliseDomain(input);
      assert.equal(result.ok, false, input);
      if (!result.ok) assert.match(result.errors[0] ?? "", /^The domain /, input);
    }
  });
});

describe("exclusion lists", () => {
  it("normalises IP entries and CIDR blocks", () => {
    assert.equal(normaliseIpEntry("10.0.0.1"), "10.0.0.1");
    assert.equal(normaliseIpEntry("10.0.0.0/8"), "10.0.0.0/8");
    assert.equal(normaliseIpEntry("10.0.0.0/008"), "10.0.0.0/8");
    assert.equal(normaliseIpEntry("0.0.0.0/0"), "0.0.0.0/0");
    assert.equal(normaliseIpEntry("2001:DB8::1"), "2001:db8::1");
    assert.equal(normaliseIpEntry("2001:db8::/128"), "2001:db8::/128");
    assert.equal(normaliseIpEntry("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
    for (const bad of [
      "10.0.0.256",
      "10.0.0.0/33",
      "2001:db8::/129",
      "10.0.0.0/",
      "10.0.0.0/8/8",
      "/8",
      "10.0.0.0/-1",
      "host",
      "10.0.0.0/a",
    ]) {
      assert.equal(normaliseIpEntry(bad), null, bad);
    }
  });

  it("splits on newlines and commas, trims, dedupes and keeps order", () => {
    assert.deepEqual(parseIpList(" 10.0.0.1 ,\r\n\n10.0.0.2,10.0.0.1 ", "exclude ips"), {
      ok: true,
      value: "10.0.0.1\n10.0.0.2",
    });
    assert.deepEqual(parseIpList(" , \n ", "exclude ips"), { ok: true, value: null });
    assert.deepEqual(parseParamList("utm_source, fbclid\nref\n&", "exclude params"), {
      ok: true,
      value: "utm_source\nfbclid\nref\n&",
    });
  });

  it("names each invalid entry and caps the list of reasons", () => {
    const many = Array.from({ length: 15 }, (_, i) => `bad${i}`).join("\n");
    const result = parseIpList(many, "exclude ips");
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.errors.length, 11);
      assert.equal(result.errors[0], 'The exclude ips entry "bad0" is not a valid IP address or CIDR block.');
      assert.equal(result.errors[10], "The exclude ips has 5 more invalid entries.");
    }
    // A long entry is quoted in its first 57 code units, never half an emoji.
    const long = parseIpList(`${"1".repeat(56)}😀😀1111`, "exclude ips");
    assert.equal(long.ok, false);
    if (!long.ok)
      assert.equal(
        long.errors[0],
        `The exclude ips entry "${"1".repeat(56)}..." is not a valid IP address or CIDR block.`,
      );
    const params = parseParamList("ok, a=b, c d, x?y, &&", "exclude params");
    assert.equal(params.ok, false);
    if (!params.ok) assert.equal(params.errors.length, 4, "a=b, c d, x?y and && are invalid");
  });

  it("treats parameter names as exact and case-sensitive", () => {
    assert.deepEqual(parseParamList("UTM_Source,utm_source", "exclude params"), {
      ok: true,
      value: "UTM_Source\nutm_source",
    });
  });
});
