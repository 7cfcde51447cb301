// How well the product tells bots from people (the verdict of classifyUserAgent in
// dist/src/enrich/user-agent.js, which collection reads), on public corpora of real user
// agents that others labelled:
//
// - recall on crawlers: every example user agent of `crawler-user-agents` (npm, MIT: the
//   crawler patterns the community maintains, each with instances seen in logs), and the
//   user agents uap-core's own test cases label as device "Spider";
// - false positives on people's browsers: `user-agents` (npm, BSD-2-Clause: browsers seen
//   on a real website, with how often, so a weighted rate too), and uap-core's test cases
//   whose browser family is a browser's (BROWSER_FAMILIES below; not its libraries, apps,
//   feeds or crawlers).
//
// uap-core's test cases come with Debian's `uap-core` package (apt-get install uap-core:
// /usr/share/uap-core); without it those two lines are skipped, and said so. Its
// pgts_browser_list (thousands of strings from the 2000s, many malformed or forged) is
// left out. Prints one JSON line; `--show N` lists N misses and false positives of each.
//
//   npm run build && node bench/bot-quality.mjs [--uap-dir /usr/share/uap-core] [--show 20]

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

/** The browser families of uap-core's labels that are people's browsers (in-app ones included). */
const BROWSER_FAMILIES =
  /^(Chrome( Mobile( iOS| WebView)?| Frame)?|Chromium|Firefox( Mobile| iOS| Beta| Alpha)?|Safari|Mobile Safari( UI\/WKWebView)?|Opera( Mini| Mobile| Tablet| Coast| Neon)?|Edge( Mobile)?|IE( Mobile)?|Samsung Internet|UC Browser|Android|Yandex Browser|Silk|Amazon Silk|BlackBerry WebKit|Vivaldi|Brave|QQ Browser( Mobile)?|Puffin|Maxthon|Sogou Explorer|Baidu Browser|MiuiBrowser|Pale Moon|SeaMonkey|Iceweasel|Konqueror|Epiphany|Midori|Facebook|Instagram|NetFront|Obigo|Polaris|Dolfin|Openwave|Nokia Browser|Nokia OSS Browser|Ovi Browser|Jasmine|Blazer|Teleca|Iron|Camino|Galeon|K-Meleon|Lunascape|Sleipnir|Avant|Flock|Arora|Netscape|Fennec|Kindle|Tizen Browser|Coc Coc|Whale|Mint Browser|Vivo Browser|Huawei Browser|HeyTapBrowser|Oppo Browser)$/;

const isBot = (ua) => classifyUserAgent(ua).bot;

/** Share of `uas` the product calls bots (recall) or not (for browsers, the false positives), and examples of the other side. */
function measure(name, uas, bots) {
  const wrong = uas.filter((ua) => isBot(ua) !== bots);
  const rate = bots ? 1 - wrong.length / uas.length : wrong.length / uas.length;
  const result = {
    corpus: name,
    userAgents: uas.length,
    [bots ? "recallPct" : "falsePositivePct"]: percent(rate),
  };
  console.error(
    `${name}: ${uas.length} user agents, ${bots ? `recall ${percent(rate)} %` : `${wrong.length} taken for bots: ${percent(rate)} %`}`,
  );
  for (const ua of wrong.slice(0, show)) console.error(`  ${bots ? "missed" : "taken for a bot"}: ${ua}`);
  return result;
}

const unique = (list) => [...new Set(list)];

const results = [];
const crawlers = JSON.parse(fs.readFileSync(require.resolve("crawler-user-agents"), "utf8"));
results.push(
  measure(
    "crawler-user-agents, instances",
    unique(crawlers.flatMap((crawler) => crawler.instances ?? [])),
    true,
  ),
);
const browsers = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve("user-agents")), "user-agents.json"), "utf8"),
);
const browserResult = measure(
  "user-agents, browsers",
  unique(browsers.map((browser) => browser.userAgent)),
  false,
);
const weight = (list) => list.reduce((sum, browser) => sum + browser.weight, 0);
browserResult.weightedFalsePositivePct = percent(
  weight(browsers.filter((browser) => isBot(browser.userAgent))) / weight(browsers),
);
results.push(browserResult);

const uapTests = path.join(options["uap-dir"], "tests");
if (fs.existsSync(path.join(uapTests, "test_ua.yaml"))) {
  const spiders = unique(
    uapCases(path.join(uapTests, "test_device.yaml"))
      .filter((item) => item.family === "Spider")
      .map((item) => item.user_agent_string),
  );
  results.push(measure("uap-core test cases, device Spider", spiders, true));
  const spiderSet = new Set(spiders);
  const resources = path.join(options["uap-dir"], "test_resources");
  const labelled = [
    ...uapCases(path.join(uapTests, "test_ua.yaml")),
    ...["firefox_user_agent_strings.yaml", "opera_mini_user_agent_strings.yaml"].flatMap((file) =>
      fs.existsSync(path.join(resources, file)) ? uapCases(path.join(resources, file)) : [],
    ),
  ];
  const people = unique(
    labelled
      .filter((item) => BROWSER_FAMILIES.test(item.family) && !spiderSet.has(item.user_agent_string))
      .map((item) => item.user_agent_string),
  );
  results.push(measure("uap-core test cases, browser families", people, false));
} else {
  console.error(`uap-core's test cases skipped: ${uapTests} not found (apt-get install uap-core)`);
}
console.log(JSON.stringify({ results }));
