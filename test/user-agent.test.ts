// Classification of real user agents into the contract's browser, OS and device families,
// and the classifier's cache.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyUserAgent, UserAgentClassifier, type UserAgentInfo } from "../src/enrich/user-agent.js";
import { BROWSERS, HEADLESS_CHROME } from "./fixtures/user-agents.js";

/** The three families, without the cached bot verdict (tested in bot-filter.test.ts and below). */
const families = ({ browser, os, device }: UserAgentInfo) => ({ browser, os, device });

describe("classifyUserAgent", () => {
  it("has a wide table of real browsers", () => {
    assert.ok(BROWSERS.length >= 120, `only ${BROWSERS.length} browser cases`);
  });

  for (const { ua, ...expected } of BROWSERS) {
    it(`${expected.browser} / ${expected.os} / ${expected.device}: ${ua}`, () => {
      const actual = classifyUserAgent(ua);
      assert.deepEqual(families(actual), expected, `${ua}\n  got ${JSON.stringify(actual)}`);
      assert.equal(actual.bot, false, `a real browser is not a bot: ${ua}`);
    });
  }

  it("folds Chrome Headless into Chrome", () => {
    assert.deepEqual(classifyUserAgent(HEADLESS_CHROME), {
      browser: "Chrome",
      os: "Linux",
      device: "desktop",
      bot: true,
    });
  });

  it("leaves an empty or blank user agent unknown", () => {
    for (const ua of ["", "   "]) {
      assert.deepEqual(
        classifyUserAgent(ua),
        { browser: "", os: "", device: "", bot: true },
        JSON.stringify(ua),
      );
    }
  });

  it("leaves what it cannot recognise unknown", () => {
    assert.deepEqual(families(classifyUserAgent("not a browser")), { browser: "", os: "", device: "" });
  });

  it("reads only the start of an overlong user agent", () => {
    const ua = BROWSERS[0]?.ua ?? "";
    assert.deepEqual(classifyUserAgent(`${ua} ${"x".repeat(20_000)}`), classifyUserAgent(ua));
  });
});

describe("UserAgentClassifier", () => {
  it("returns the cached object for a repeated user agent", () => {
    const classifier = new UserAgentClassifier();
    const ua = BROWSERS[0]?.ua ?? "";
    const first = classifier.classify(ua);
    assert.equal(classifier.classify(ua), first);
    assert.deepEqual(first, classifyUserAgent(ua));
    assert.equal(classifier.size, 1);
  });

  it("stays bounded, evicting the oldest entries", () => {
    const classifier = new UserAgentClassifier(10);
    const results = BROWSERS.map(({ ua, ...expected }) => {
      const info = classifier.classify(ua);
      assert.deepEqual(families(info), expected, ua);
      assert.ok(classifier.size <= 10, `size ${classifier.size} after ${ua}`);
      return info;
    });
    const last = BROWSERS.length - 1;
    assert.equal(
      classifier.classify(BROWSERS[last]?.ua ?? ""),
      results[last],
      "the newest entry stays cached",
    );
    assert.notEqual(classifier.classify(BROWSERS[0]?.ua ?? ""), results[0], "the oldest entry was evicted");
  });

  it("keeps the default bound under distinct user agents", () => {
    const classifier = new UserAgentClassifier();
    for (let i = 0; i < 20_050; i++)
      classifier.classify(`Mozilla/5.0 (X11; Linux x86_64; rv:${i}.0) Firefox/${i}.0`);
    assert.ok(classifier.size <= 20_000, `size ${classifier.size}`);
    assert.ok(classifier.size >= 10_000, `size ${classifier.size}`);
  });
});
