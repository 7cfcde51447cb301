// Bot detection for websites with exclude_bots = 1: isbot's pattern list, plus a missing
// user agent (browsers always send one) and HTTP clients isbot does not know, less the
// people's browsers some of isbot's patterns also catch (BROWSER_TOKENS). A user agent is a
// bot when one of isbot's matches in it is not such a browser's token, so a crawler that
// also carries one is still caught. Headless and automated browsers (HeadlessChrome,
// PhantomJS, Puppeteer's and Playwright's defaults) stay bots: isbot knows them and no
// token below excuses them. bench/bot-quality.mjs measures both sides on public corpora.

import { isbot, isbotMatches } from "isbot";

// Dart's HTTP client (Flutter apps, scripts) never renders a page.
const EXTRA_CLIENTS = /\(dart:io\)/;

/** A J2ME feature phone: its WAP browser names the phone's Java profile, which isbot takes for a Java client. */
const FEATURE_PHONE = /\bProfile\/MIDP-\d.*\bConfiguration\/CLDC-\d/;

/**
 * What isbot matches in some people's browsers: a match (`token`) is excused when the user
 * agent is such a browser's (`when`). A new one is a row; each has a case in
 * test/bot-filter.test.ts, both ways.
 */
const BROWSER_TOKENS: { token: RegExp; when?: RegExp }[] = [
  // Internet Explorer with the Google Chrome Frame plug-in.
  { token: /^chromeframe/i },
  // Firefox with the FirePHP developer extension.
  { token: /^FirePHP$/ },
  // Apple News' article view (isbot's "news" readers pattern).
  { token: /^eNews$/, when: /\bAppleNews\/\d/ },
  // Samsung's Bada phones, whose browser is Dolfin.
  { token: /^Bada\//, when: /\bDolfin\/\d/ },
  // WAP browsers of feature phones (Obigo, Opera Mobile, NetFront...): their Java profile,
  // and a user agent that begins with its browser's name in parentheses.
  { token: /^(Java|\()$/, when: FEATURE_PHONE },
  // Facebook's app on Android, whose in-app browser sends its app data alone.
  { token: /^\[FBAN\/(FB4A|PAAA);/ },
];

export function isBot(userAgent: string): boolean {
  if (userAgent.trim() === "" || EXTRA_CLIENTS.test(userAgent)) return true;
  if (!isbot(userAgent)) return false;
  return isbotMatches(userAgent).some(
    (match) => !BROWSER_TOKENS.some((browser) => excuses(browser, match, userAgent)),
  );
}

function excuses(browser: (typeof BROWSER_TOKENS)[number], match: string, userAgent: string): boolean {
  return browser.token.test(match) && (browser.when === undefined || browser.when.test(userAgent));
}
