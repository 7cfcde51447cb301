// The `filters` parameter's parser (src/stats/stats-filter.ts): every dimension and
// operator, escapes, values with the syntax's own characters, and a clear sentence for
// each way a filter can be wrong. What the filters count is event-store-contract.test.ts's.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FILTER_DIMENSIONS, MAX_FILTERS, parseFilters } from "../src/stats/stats-filter.js";

/** The parsed filters as [dimension, operator, value] triples, or the problem. */
function parsed(raw: string): [string, string, string][] | string {
  const result = parseFilters(raw);
  if ("problem" in result) return result.problem;
  return result.filters.map((filter) => [filter.dimension.name, filter.operator, filter.value]);
}

describe("filters parameter", () => {
  it("reads each operator, and several conditions joined by ;", () => {
    assert.deepEqual(parsed("page==/pricing;country!=US:United States;referrer~Google;browser!~Fire"), [
      ["page", "is", "/pricing"],
      ["country", "is_not", "US:United States"],
      ["referrer", "contains", "google"],
      ["browser", "does_not_contain", "fire"],
    ]);
  });

  it("takes every dimension of the catalog's lists", () => {
    for (const dimension of FILTER_DIMENSIONS) {
      assert.deepEqual(parsed(`${dimension.name}==x`), [[dimension.name, "is", "x"]]);
    }
  });

  it("keeps a value as written: spaces, =, ~, !, a colon, an empty value for == and !=", () => {
    assert.deepEqual(parsed("page== /a=b~c!d "), [["page", "is", " /a=b~c!d "]]);
    assert.deepEqual(parsed("event==Purchase:49.99"), [["event", "is", "Purchase:49.99"]]);
    assert.deepEqual(parsed("referrer=="), [["referrer", "is", ""]]);
    assert.deepEqual(parsed("referrer!="), [["referrer", "is_not", ""]]);
    assert.deepEqual(parsed("page==/a;"), [["page", "is", "/a"]], "a trailing ; ends nothing");
  });

  it("reads \\; and \\\\ in a value as ; and \\", () => {
    assert.deepEqual(parsed("page==/a\\;b;city==X\\\\Y"), [
      ["page", "is", "/a;b"],
      ["city", "is", "X\\Y"],
    ]);
    assert.match(parsed("page==/a\\b") as string, /has a \\ not followed by ; or \\/);
    assert.match(parsed("page==/a\\") as string, /has a \\ not followed by ; or \\/);
  });

  it("says what is wrong with a filter, naming it", () => {
    assert.equal(
      parsed("bogus==1"),
      'The filter "bogus==1" must begin with one of page, landing_page, referrer, campaign, browser, os, device, resolution, language, country, city, continent, event.',
    );
    assert.match(
      parsed("Page==/") as string,
      /^The filter "Page==\/" must begin with one of/,
      "names are lowercase",
    );
    assert.equal(parsed("page=/a"), 'The filter "page=/a" must have ==, !=, ~ or !~ after page.');
    assert.equal(parsed("page"), 'The filter "page" must have ==, !=, ~ or !~ after page.');
    assert.equal(parsed("page~"), 'The filter "page~" must say what the page contains.');
    assert.equal(parsed(""), "The filters must hold at least one condition.");
    assert.equal(parsed(";;"), "The filters must hold at least one condition.");
    const many = Array.from({ length: MAX_FILTERS + 1 }, (_, i) => `page!=/${i}`).join(";");
    assert.equal(parsed(many), `The filters must be at most ${MAX_FILTERS} conditions.`);
    assert.equal(
      parsed(`page==${"x".repeat(2049)}`),
      "The value of the filter on page must be at most 2048 characters.",
    );
    // A long filter is quoted in its first 57 code units, never half an emoji.
    assert.match(parsed(`nope==${"x".repeat(100)}`) as string, /^The filter "nope==x{51}\.\.\." must/);
    assert.match(parsed(`nope==${"x".repeat(50)}😀😀yyyy`) as string, /^The filter "nope==x{50}\.\.\." must/);
    assert.match(
      parsed(`nope==${"x".repeat(49)}😀😀yyyy`) as string,
      /^The filter "nope==x{49}😀\.\.\." must/,
    );
  });
});
