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

  it("names the systems the parser misses by their own tokens (OS_TOKENS), one case a row", () => {
    const cases: [string, string][] = [
      [
        "Mozilla/5.0 (Mobile; LYF/F300B/LYF-F300B-001-01-15-130718-i; Android; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5",
        "KaiOS",
      ],
      [
        "Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_6_3; en-us; Silk/1.1.0-80) AppleWebKit/533.16 (KHTML, like Gecko) Version/5.0 Safari/533.16 Silk-Accelerated=true",
        "Android",
      ],
      [
        "UCWEB/2.0 (Linux; U; Adr 2.3.6; en-US; HUAWEI_Y210-0251) U2/1.0.0 UCBrowser/8.6.0.318 U2/1.0.0 Mobile",
        "Android",
      ],
      [
        "UCWEB/2.0 (iOS; U; iPad OS 6_1_3; en-US; iPad2,5) U2/1.0.0 UCBrowser/9.0.0.260 U2/1.0.0 Mobile",
        "iOS",
      ],
      [
        "UCWEB/2.0 (Windows; U; wds 8.0; zh-CN; NOKIA; RM-910_apac_prc_200) U2/1.0.0 UCBrowser/3.0.1.302 U2/1.0.0 Mobile",
        "Windows Phone",
      ],
      [
        "Mozilla/5.0 (iPhone; U; CPU iPhone 6_1_4 like Mac OS X; en-us) AppleWebKit/528.18 (KHTML, like Gecko) Mobile/7E18 Grindr/1.8.8 (iPhone5,2/6.1.4)",
        "iOS",
      ],
      ["Safari/9537.71 CFNetwork/673.0.2 Darwin/13.0.1 (x86_64) (MacBookPro11,1)", "macOS"],
      [
        "Mozilla/5.0 (S60V5; U; en-us; NokiaC5-03) AppleWebKit/530.13 (KHTML, like Gecko) UCBrowser/8.7.0.218/50/352/UCWEB Mobile",
        "Symbian",
      ],
      [
        "Mozilla/4.0 (compatible; MSIE 5.0; S60/3.0 NOKIAN73/1.0 Profile/MIDP-2.0 Configuration/CLDC-1.1)",
        "Symbian",
      ],
      ["JUC (Linux; U; 2.3.6; zh-cn; GT-S7500; 320*480) UCWEB7.9.0.94/139/352", "Android"],
      ["Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0; XBLWP7; ZuneWP7)", "Windows Phone"],
      [
        "Mozilla/5.0 (X11; Windows x86_64 10718.88.2) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.118 Safari/537.36 CitrixChromeApp",
        "Chrome OS",
      ],
      [
        "Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.9.0.19) Gecko/2010031218 FreeBSD/i386 Firefox/3.0.19",
        "BSD",
      ],
    ];
    for (const [ua, os] of cases) assert.equal(classifyUserAgent(ua).os, os, ua);
    // And the same systems' usual user agents are not taken for these.
    const iosCfNetwork = "MobileSafari/604.1 CFNetwork/1121.2.2 Darwin/19.2.0";
    assert.notEqual(classifyUserAgent(iosCfNetwork).os, "macOS", iosCfNetwork);
    const citrixOnWindows =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.106 Safari/537.36 CitrixChromeApp";
    assert.equal(classifyUserAgent(citrixOnWindows).os, "Windows", citrixOnWindows);
  });

  it("names a system by a token the parser does not read only when the parser found none (OS_FALLBACK_TOKENS)", () => {
    const cases: [string, string][] = [
      ["Deezer/4.8.2 (iOS; 7.1; Mobile; de)", "iOS"],
      ["server-bag [iPhone OS,6.1,10B144,iPhone3,2]", "iOS"],
      ["4 Pics 1 Word/3.9 (iPad; iOS 7.0.2; Scale/2.00)", "iOS"],
      ["IUC(U;iOS 5.1.1;Zh-cn;320*480;)/UCWEB7.9.0.94/41/997", "iOS"],
      ["Mozilla/5.0 (Windows U; Win NT 5.0; en-US; rv:1.8.0.2) Gecko/20060308 Firefox/1.5.0.2", "Windows"],
      ["Mozilla/5.0 (WindowsCE 6.0; rv:2.0.1) Gecko/20100101 Firefox/4.0.1 SeaMonkey/2.1.1", "Windows"],
      ["Mozilla/4.0 (compatible; MSIE 5.0; Windows ME) Opera 5.11 [de]", "Windows"],
      ["Box Sync/4.0.7848;Darwin/10.13;i386/64bit", "macOS"],
    ];
    for (const [ua, os] of cases) assert.equal(classifyUserAgent(ua).os, os, ua);
    // The parser's answer stands where it has one: an Android app naming an iPhone it copies.
    const android =
      "Mozilla/5.0 (Linux; Android 13; SM-S901B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 iPhone-compatible";
    assert.equal(classifyUserAgent(android).os, "Android", android);
  });

  it("names the smart TVs the parser takes for desktops by their own tokens (DEVICE_TOKENS)", () => {
    const televisions = [
      "Mozilla/5.0 (Linux; Andr0id 9; VIDAA) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0 Safari/537.36 Hisense",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/88.0.4324.150 Safari/537.36 VIZIO SmartCast",
      "HbbTV/1.4.1 (+DRM;Samsung;SmartTV2018;T-KTMDEUC-1106.2;;) Tizen/4.0 (+TVPLUS+SmartHubLink) Chrome/56",
    ];
    for (const ua of televisions) assert.equal(classifyUserAgent(ua).device, "tv", ua);
    const desktop =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/88.0.4324.150 Safari/537.36";
    assert.equal(classifyUserAgent(desktop).device, "desktop", "the same browser on a computer");
  });

  it("reads a user agent whose spaces were written as + (and does not take it for a bot)", () => {
    const plussed =
      "Mozilla/5.0+(iPhone;+CPU+iPhone+OS+9_3_1+like+Mac+OS+X)+AppleWebKit/601.1.46+(KHTML,+like+Gecko)+Version/9.0+Mobile/13E238+Safari/601.1";
    assert.deepEqual(classifyUserAgent(plussed), {
      browser: "Safari",
      os: "iOS",
      device: "mobile",
      bot: false,
    });
    const googlebot = "Googlebot/2.1+(+http://www.google.com/bot.html)";
    assert.equal(classifyUserAgent(googlebot).bot, true, "a crawler stays one");
    const spaced = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0 +(extra)";
    assert.equal(classifyUserAgent(spaced).browser, "Firefox", "a user agent with spaces is read as it is");
  });

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
