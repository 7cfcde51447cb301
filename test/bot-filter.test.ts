// Bot detection both ways: real browsers are kept, crawlers and tools are dropped.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isBot } from "../src/enrich/bot-filter.js";
import { BOTS, BROWSERS, HEADLESS_CHROME } from "./fixtures/user-agents.js";

describe("isBot", () => {
  for (const { ua } of BROWSERS) {
    it(`keeps the browser ${ua}`, () => assert.equal(isBot(ua), false, ua));
  }

  it("has a wide table of bots", () => {
    assert.ok(BOTS.length >= 50, `only ${BOTS.length} bot cases`);
  });

  for (const ua of BOTS) {
    it(`drops the bot ${ua}`, () => assert.equal(isBot(ua), true, ua));
  }

  it("drops Headless Chrome", () => {
    assert.equal(isBot(HEADLESS_CHROME), true);
  });

  it("drops an empty or blank user agent", () => {
    for (const ua of ["", " ", "\t"]) assert.equal(isBot(ua), true, JSON.stringify(ua));
  });
});
