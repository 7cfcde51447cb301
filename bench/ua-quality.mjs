// How often the product's browser family, operating system and device type
// (dist/src/enrich/user-agent.js) agree with labels others gave real user agents:
//
// - browser family and operating system: uap-core's test cases (Debian's `uap-core`
//   package, /usr/share/uap-core/tests: test_ua.yaml labels browsers, test_os.yaml
//   systems), each label mapped to the product's name for it (BROWSERS, SYSTEMS below: a
//   family the product names otherwise is a row). Cases whose label maps to nothing (apps,
//   mail clients, libraries, crawlers, "Other") are left out and counted;
// - device type: the browsers of `user-agents` (npm, BSD-2-Clause: seen on a real
//   website, each with the device category its browser reported: desktop, mobile or
//   tablet), also weighted by how often each was seen;
// - operating system on that traffic too, where the browser's own navigator.platform names
//   one (iPhone and iPad, Win32, MacIntel, Linux on ARM in a phone or tablet): a label from
//   the browser, not read from the user agent string.
//
// Prints one JSON line; `--show N` lists N disagreements of each.
//
//   npm run build && node bench/ua-quality.mjs [--uap-dir /usr/share/uap-core] [--show 20]

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { classifyUserAgent } from "../dist/src/enrich/user-agent.js";
import { percent, UAP_CORE_DIR, uapCases } from "./uap-core-cases.mjs";

const { values: options } = parseArgs({
  options: {
    "uap-dir": { type: "string", default: UAP_CORE_DIR },
    show: { type: "string", default: "0" },
  },
});
const show = Number(options.show);
const require = createRequire(import.meta.url);

/** uap-core's browser families, as the product names them (variants folded into one family). */
const BROWSERS = {
  Chrome: "Chrome",
  "Chrome Mobile": "Chrome",
  "Chrome Mobile iOS": "Chrome",
  "Chrome Mobile WebView": "Chrome",
  Chromium: "Chromium",
  Firefox: "Firefox",
  "Firefox Mobile": "Firefox",
  "Firefox iOS": "Firefox",
  "Firefox Beta": "Firefox",
  "Firefox Alpha": "Firefox",
  Safari: "Safari",
  "Mobile Safari": "Safari",
  "Mobile Safari UI/WKWebView": "Safari",
  Opera: "Opera",
  "Opera Mini": "Opera",
  "Opera Mobile": "Opera",
  "Opera Tablet": "Opera",
  "Opera Coast": "Opera",
  Edge: "Edge",
  "Edge Mobile": "Edge",
  IE: "Internet Explorer",
  "IE Mobile": "Internet Explorer",
  "Samsung Internet": "Samsung Internet",
  "UC Browser": "UC Browser",
  "Yandex Browser": "Yandex Browser",
  "QQ Browser": "QQ Browser",
  "QQ Browser Mobile": "QQ Browser",
  "Pale Moon": "Pale Moon",
  Vivaldi: "Vivaldi",
  Brave: "Brave",
  Whale: "Whale",
  "Amazon Silk": "Silk",
  Silk: "Silk",
  Puffin: "Puffin",
  Maxthon: "Maxthon",
  "Baidu Browser": "Baidu",
  SeaMonkey: "SeaMonkey",
  Konqueror: "Konqueror",
  Epiphany: "Epiphany",
  Midori: "Midori",
  Iceweasel: "Firefox",
  Fennec: "Firefox",
  "Coc Coc": "Coc Coc",
  Facebook: "Facebook",
  Instagram: "Instagram",
  Pinterest: "Pinterest",
  Google: "Google App",
  LINE: "LINE",
  MiuiBrowser: "MIUI Browser",
  Android: "Android Browser",
  "BlackBerry WebKit": "BlackBerry Browser",
  Dolphin: "Dolphin",
  NetFront: "NetFront",
  Obigo: "Obigo",
  "Nokia Browser": "Nokia Browser",
};

/** uap-core's operating systems, as the product names them. */
const SYSTEMS = {
  iOS: "iOS",
  Windows: "Windows",
  Android: "Android",
  Linux: "Linux",
  Ubuntu: "Linux",
  Gentoo: "Linux",
  Fedora: "Linux",
  Debian: "Linux",
  "Mac OS X": "macOS",
  "Windows Phone": "Windows Phone",
  "Windows Mobile": "Windows Phone",
  "Chrome OS": "Chrome OS",
  FreeBSD: "BSD",
  OpenBSD: "BSD",
  NetBSD: "BSD",
  KaiOS: "KaiOS",
  Tizen: "Tizen",
  webOS: "webOS",
  Web0S: "webOS",
  "BlackBerry OS": "BlackBerry",
  "Symbian OS": "Symbian",
  "Firefox OS": "Firefox OS",
  Solaris: "Solaris",
};

/** Agreement of `read(ua)` with `expected` over `cases` ({ ua, expected, weight? }). */
function agreement(name, cases, read, extra = {}) {
  const wrong = cases.filter((item) => read(item.ua) !== item.expected);
  const result = {
    corpus: name,
    userAgents: cases.length,
    agreementPct: percent(1 - wrong.length / cases.length),
    ...extra,
  };
  if (cases[0]?.weight !== undefined) {
    const total = cases.reduce((sum, item) => sum + item.weight, 0);
    const off = wrong.reduce((sum, item) => sum + item.weight, 0);
    result.weightedAgreementPct = percent(1 - off / total);
  }
  console.error(`${name}: ${cases.length} user agents, ${percent(1 - wrong.length / cases.length)} % agree`);
  for (const item of wrong.slice(0, show))
    console.error(`  expected ${item.expected}, got ${read(item.ua) || '""'}: ${item.ua}`);
  return result;
}

/** Each distinct user agent once, with the label it was given (the first, if several). */
function labelled(cases, table) {
  const seen = new Map();
  let unmapped = 0;
  for (const item of cases) {
    const expected = table[item.family];
    if (expected === undefined) unmapped++;
    else if (!seen.has(item.user_agent_string)) seen.set(item.user_agent_string, expected);
  }
  return { cases: [...seen].map(([ua, expected]) => ({ ua, expected })), unmapped };
}

const results = [];
const uapTests = path.join(options["uap-dir"], "tests");
if (fs.existsSync(path.join(uapTests, "test_ua.yaml"))) {
  const browsers = labelled(uapCases(path.join(uapTests, "test_ua.yaml")), BROWSERS);
  results.push(
    agreement("uap-core test_ua, browser family", browsers.cases, (ua) => classifyUserAgent(ua).browser, {
      leftOutUnmapped: browsers.unmapped,
    }),
  );
  const systems = labelled(uapCases(path.join(uapTests, "test_os.yaml")), SYSTEMS);
  results.push(
    agreement("uap-core test_os, operating system", systems.cases, (ua) => classifyUserAgent(ua).os, {
      leftOutUnmapped: systems.unmapped,
    }),
  );
} else {
  console.error(`uap-core's test cases skipped: ${uapTests} not found (apt-get install uap-core)`);
}

const seen = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve("user-agents")), "user-agents.json"), "utf8"),
);
results.push(
  agreement(
    "user-agents, device type",
    seen.map((browser) => ({
      ua: browser.userAgent,
      expected: browser.deviceCategory,
      weight: browser.weight,
    })),
    (ua) => classifyUserAgent(ua).device,
  ),
);

/**
 * The system a `user-agents` browser reported itself (navigator.platform), where it names
 * one: "Linux x86_64" is a desktop Linux, a Chromebook or an Android tablet in desktop mode,
 * so it is left out.
 */
function platformSystem(browser) {
  if (browser.platform === "iPhone" || browser.platform === "iPad") return "iOS";
  if (browser.platform === "Win32") return "Windows";
  if (browser.platform === "MacIntel") return "macOS"; // iPads asking for desktop pages too, as their user agent
  if (/^Linux (armv\d+l?|aarch64)$/.test(browser.platform) && browser.deviceCategory !== "desktop")
    return "Android";
  return null;
}
const withSystem = seen.filter((browser) => platformSystem(browser) !== null);
results.push(
  agreement(
    "user-agents, operating system (the browser's own navigator.platform)",
    withSystem.map((browser) => ({
      ua: browser.userAgent,
      expected: platformSystem(browser),
      weight: browser.weight,
    })),
    (ua) => classifyUserAgent(ua).os,
    { leftOutUnnamed: seen.length - withSystem.length },
  ),
);
console.log(JSON.stringify({ results }));
