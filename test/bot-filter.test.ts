// Bot detection both ways: real browsers are kept, crawlers and tools are dropped, and the
// browsers isbot's patterns also catch (bot-filter.ts, BROWSER_TOKENS) are kept while a bot
// carrying one of their tokens is not.

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

  // Real user agents (uap-core's test cases), one per token bot-filter.ts excuses.
  const CAUGHT_BY_ISBOT = [
    "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.0; Trident/4.0; chromeframe; SLCC1; .NET CLR 2.0.50727; .NET CLR 3.5.30729; .NET CLR 3.0.30729)",
    "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1; chromeframe/11.0.660.0)",
    "Mozilla/5.0 (Windows; U; Windows NT 6.0; en-US; rv:1.9.1.8) Gecko/20100202 Firefox/3.5.8 (.NET CLR 3.5.30729) FirePHP/0.4",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 10_0_2 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) AppleNews/608.0.1 Version/2.0.1",
    "Mozilla/5.0 (SAMSUNG; SAMSUNG-GT-S8500/S8500XXJEE; U; Bada/1.0; nl-nl) AppleWebKit/533.1 (KHTML, like Gecko) Dolfin/2.0 Mobile WVGA SMM-MMS/1.2.0 OPN-B",
    "Mozilla/4.0 (Vodafone/1.0/LG-GU280/v10a Browser/Obigo-Q7.3 MMS/LG-MMS-V1.0/1.2 Java/ASVM/1.1 Profile/MIDP-2.1 Configuration/CLDC-1.1)",
    "Vodafone/1.0/0Vodafone715/B116 Browser/Obigo-Browser/Q04A MMS/Obigo-MMS/Q04A SyncML/HW-SyncML/1.0 Java/QVM/4.1 Profile/MIDP-2.0 Configuration/CLDC-1.1",
    "(Opera) Vodafone/1.0/HPiPAQDataMessenger/1.00.00 Browser/Opera/9.5 Profile/MIDP-2.0 Configuration/CLDC-1.1 Opera/9.5 (Microsoft Windows; PPC; Opera Mobi/15142; U; en)",
    "[FBAN/FB4A;FBAV/2.3;FBBV/149649;FBDM/{density=1.5,width=480,height=800};FBLC/es_ES;FBCR/;FBPN/com.facebook.katana;FBDV/LG-P920;FBSV/2.2.2;]",
    "[FBAN/PAAA;FBAV/1.7;FBDM/{density=2.0,width=720,height=1280};FBLC/es_ES;FB_FW/2;FBSN/Android;FBCR/FONIC;FBDV/GT-I9300;FBSV/4.1.2;]",
  ];
  for (const ua of CAUGHT_BY_ISBOT) {
    it(`keeps the browser isbot takes for a bot: ${ua}`, () => assert.equal(isBot(ua), false, ua));
  }

  // The same tokens beside a bot's own, or where they do not make a browser: still bots.
  const TOKENS_IN_BOTS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; chromeframe; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) HeadlessChrome/120.0.6099.28 Safari/537.36 FirePHP/0.4",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) AppleNews/608.0.1",
    "Java/1.8.0_151",
    "Apache-HttpClient/4.5.13 (Java/17.0.2)",
    "(compatible; MSIE 6.0) Java/1.6.0",
    "Mozilla/5.0 (Bada/1.0; nl-nl) AppleWebKit/533.1 (KHTML, like Gecko) Mobile",
  ];
  for (const ua of TOKENS_IN_BOTS) {
    it(`drops the bot that carries a browser's token: ${ua}`, () => assert.equal(isBot(ua), true, ua));
  }

  it("drops headless and automated browsers by their default user agents", () => {
    for (const ua of [
      HEADLESS_CHROME,
      "Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/142.0.0.0 Safari/537.36",
    ])
      assert.equal(isBot(ua), true, ua);
  });

  it("drops an empty or blank user agent", () => {
    for (const ua of ["", " ", "\t"]) assert.equal(isBot(ua), true, JSON.stringify(ua));
  });
});
