// Launches Debian's Chromium through playwright-core for real-browser tests, or says why
// it cannot (the test then skips and prints the reason).

import fs from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.ANALYTICS_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** A desktop Chrome user agent: HeadlessChrome's own is (rightly) treated as a bot. */
export const DESKTOP_CHROME_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
}

/**
 * `hosts` are resolved to 127.0.0.1 inside the browser, so pages can use real host names.
 * `userAgent` is the browser's own: a context's user agent does not reach the beacons a page
 * sends as it is left (the browser sends them after the page is gone, as HeadlessChrome).
 */
export function launchChromium(hosts: string[], userAgent?: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(", ")}`,
      ...(userAgent ? [`--user-agent=${userAgent}`] : []),
    ],
  });
}

/** Collects the page's console messages about its Content-Security-Policy (there must be none). */
export function watchPolicy(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE); // evaluated by the browser's debugger: the page's CSP does not apply
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  );
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
