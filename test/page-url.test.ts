// Page URLs: what the pipeline reads of one (host, path, query, normalised as the WHATWG
// parser does), which texts are not pages, and the memory of texts already parsed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { campaignOf, cut, pageValue, parsePageUrl, websiteHost } from "../src/ingest/page-url.js";

const SITE = { excludedParams: null, stripQuery: false };

describe("page URLs", () => {
  it("reads host, path and query as the URL parser normalises them", () => {
    const url = parsePageUrl("HTTPS://WWW.Shop.Example./caf%C3%A9/../cart?utm_campaign=%20spring%20&x=1#top");
    assert.deepEqual(url, {
      hostname: "www.shop.example.",
      pathname: "/cart",
      search: "?utm_campaign=%20spring%20&x=1",
    });
    assert.equal(websiteHost(url as NonNullable<typeof url>), "shop.example");
    assert.equal(pageValue(url as NonNullable<typeof url>, SITE), "/cart?utm_campaign=%20spring%20&x=1");
    assert.equal(campaignOf(url as NonNullable<typeof url>), "spring");
  });

  it("keeps control characters out of what it stores: escaped in a path, dropped elsewhere", () => {
    const url = parsePageUrl(
      "https://shop.example/nul\u0000x/%01tab%09?utm_campaign=spr%00ing%0A",
    ) as NonNullable<ReturnType<typeof parsePageUrl>>;
    assert.equal(pageValue(url, { ...SITE, stripQuery: true }), "/nul%00x/%01tab%09");
    assert.equal(campaignOf(url), "spring");
    assert.equal(cut("a\u0000b\u001fc\u007fd\te\nf"), "abcdef");
    assert.equal(cut(`\u0000${"x".repeat(300)}`).length, 255, "cut after the characters are dropped");
  });

  it("is null for what is not an absolute http(s) page URL", () => {
    for (const raw of [
      "",
      "/relative",
      "ftp://shop.example/",
      "javascript:alert(1)",
      "https://",
      `https://a.example/${"x".repeat(9000)}`,
    ]) {
      assert.equal(parsePageUrl(raw), null, raw.slice(0, 40));
    }
  });

  it("remembers a parsed text, and parses long ones each time alike", () => {
    const short = "https://shop.example/remembered?a=1";
    const first = parsePageUrl(short);
    assert.equal(parsePageUrl(short), first, "the same object for the same text");
    assert.ok(Object.isFrozen(first), "shared, so not to be changed");
    const long = `https://shop.example/${"p".repeat(600)}`;
    assert.notEqual(parsePageUrl(long), parsePageUrl(long));
    assert.deepEqual(parsePageUrl(long), parsePageUrl(long));
  });
});
