// The stats page's layout in a real browser (Debian Chromium). Long values (a 300-character
// path, paths, campaigns and events with and without spaces, a long referrer host, a long
// city and a 253-character domain) neither widen the page nor push a count out of its card;
// the chart has as many points as its range calls for, and its dates fit under it. A list
// opened in full shows each long value whole, wrapped onto as many lines as it needs.
// Screenshots at phone and desktop widths, light and dark, go to test-output/pages/.

import assert from "node:assert/strict";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { ManualClock } from "../src/clock.js";
import { chromiumMissing, launchChromium } from "./support/browser.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const OUTPUT = fileURLToPath(new URL("../../test-output/pages/", import.meta.url));
const LABEL = "a-label-of-sixty-three-characters-which-is-as-long-as-labels-go";
/** As long as a domain may be: 253 characters. */
const DOMAIN = `${LABEL}.${LABEL}.${LABEL}.${"b".repeat(53)}.example`;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
/** DB-IP names this address's city with 77 characters (and spaces). */
const LONG_CITY_IP = "161.79.200.10";
const LONG_PATH = `/${"x".repeat(299)}`;
const WORDS = "a page about long words that goes on and on without a break ".repeat(4).trim();
const missing = chromiumMissing();
if (missing) console.log(`# SKIPPED pages-layout tests: ${missing}`);

/** What the page must keep inside its cards, measured in the browser. */
interface Layout {
  scrollWidth: number;
  clientWidth: number;
  /** Count cells whose box is not inside their card's box, or that have no width. */
  countsOutside: string[];
  /** Cut labels that do not end in an ellipsis or whose full text is not in a title. */
  cutWithoutTitle: string[];
  /** How many labels were cut (the fixture has some that must be). */
  cut: number;
  /** Whether the heading (the domain) fits its own box. */
  headingFits: boolean;
  /** Lines the domain takes in the heading, and the title that holds it whole. */
  domainLines: number;
  domainTitle: string;
}

/** A label's or a box's horizontal extent in the window. */
interface Box {
  left: number;
  right: number;
  text: string;
}

const MEASURE = `(() => {
  const inside = (inner, outer) =>
    inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.width > 0;
  const countsOutside = [];
  for (const cell of document.querySelectorAll(".card td.count")) {
    const card = cell.closest(".card").getBoundingClientRect();
    if (!inside(cell.getBoundingClientRect(), card))
      countsOutside.push(cell.closest(".card").id + ": " + cell.textContent);
  }
  let cut = 0;
  const cutWithoutTitle = [];
  for (const label of document.querySelectorAll(".card .top td.name span")) {
    if (label.scrollWidth <= label.clientWidth) continue;
    cut += 1;
    const title = label.closest("[title]")?.title ?? "";
    if (getComputedStyle(label).textOverflow !== "ellipsis" || !title.includes(label.textContent))
      cutWithoutTitle.push(label.textContent);
  }
  const heading = document.querySelector("h1");
  const domain = heading.querySelector("[title]") ?? heading;
  return {
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    countsOutside,
    cutWithoutTitle,
    cut,
    headingFits: heading.scrollWidth <= heading.clientWidth,
    domainLines: Math.round(domain.clientHeight / parseFloat(getComputedStyle(domain).lineHeight)),
    domainTitle: domain.title,
  };
})()`;

/** How a list opened in full shows its values, measured in the browser. */
interface FullList {
  scrollWidth: number;
  innerWidth: number;
  /** Labels (name or detail) that are cut: wider inside than their box, or outside their cell. */
  clipped: string[];
  /** Count cells that are cut, outside the card, or not at the card's right. */
  countsHidden: string[];
  /** Texts of the rows' names, as the page holds them. */
  names: string[];
  /** Lines the tallest name takes. */
  mostLines: number;
}

const MEASURE_FULL_LIST = `(() => {
  const card = document.querySelector(".card.details");
  const cardBox = card.getBoundingClientRect();
  const clipped = [];
  const countsHidden = [];
  const rights = [];
  let mostLines = 0;
  for (const row of card.querySelectorAll("tr[data-value]")) {
    const cell = row.querySelector("td.name").getBoundingClientRect();
    for (const label of row.querySelectorAll("td.name .name, td.name .detail")) {
      const box = label.getBoundingClientRect();
      const inside =
        box.left >= cell.left - 0.5 && box.right <= cell.right + 0.5 &&
        box.top >= cell.top - 0.5 && box.bottom <= cell.bottom + 0.5 && box.width > 0;
      if (label.scrollWidth > label.clientWidth || label.scrollHeight > label.clientHeight || !inside)
        clipped.push(label.textContent);
      if (label.classList.contains("name"))
        mostLines = Math.max(mostLines, Math.round(box.height / parseFloat(getComputedStyle(label).lineHeight)));
    }
    const count = row.querySelector("td.count");
    const box = count.getBoundingClientRect();
    if (count.scrollWidth > count.clientWidth || box.width === 0 || box.left < cardBox.left ||
        box.right > cardBox.right + 0.5)
      countsHidden.push(count.textContent);
    rights.push(box.right);
  }
  if (new Set(rights.map(Math.round)).size > 1) countsHidden.push("counts end at " + rights.join(", "));
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    clipped,
    countsHidden,
    names: [...card.querySelectorAll("tr[data-value] td.name .name")].map((name) => name.textContent),
    mostLines,
  };
})()`;

describe("stats page layout in a real browser", { skip: missing ?? false }, () => {
  let t: TestApp;
  let browser: Browser;
  let base = "";

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-04-10T12:00:00Z"));
    const key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: DOMAIN, privacy: "0" },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id;
    const hit = (n: number, page: string, extra: Record<string, unknown> = {}) => ({
      website_id: id,
      ts: `2026-04-0${1 + (n % 9)}T${String(n % 24).padStart(2, "0")}:00:00Z`,
      page: `https://${DOMAIN}${page}`,
      ip: n % 2 === 0 ? LONG_CITY_IP : `81.2.69.${n}`,
      user_agent: FIREFOX,
      accept_language: "pt-BR",
      screen_resolution: "1920x1080",
      ...extra,
    });
    const events = [
      hit(1, LONG_PATH, { referrer: `https://${"very-long-referring-host-name-".repeat(4)}example.org/` }),
      hit(2, `/${encodeURIComponent(WORDS)}?q=${"long-query-".repeat(10)}`),
      hit(3, `/?utm_campaign=${encodeURIComponent(`${WORDS} spring`)}`, {
        referrer: `https://search.${"another-long-label-".repeat(3)}example.net/results`,
      }),
      hit(4, `/?utm_campaign=${"NoSpacesInThisCampaignName".repeat(8)}`),
      hit(5, "/checkout", { event: { name: "x".repeat(200) } }),
      hit(6, "/checkout", {
        event: { name: WORDS, value: "9999999.99", unit: "a unit of thirty-two characters!" },
      }),
      // Short ones too, so the long values share their cards as they would in real lists.
      ...Array.from({ length: 5 }, (_, n) => hit(n + 7, `/short/${n}`)),
    ];
    const imported = await t.call(key, { method: "POST", url: "/api/v1/events", json: { events } });
    assert.equal(imported.statusCode, 202, imported.body);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium([]);
    fs.mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const width of [390, 1280]) {
    for (const scheme of ["light", "dark"] as const) {
      it(`keeps long values inside their cards at ${width}px in ${scheme} mode`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          colorScheme: scheme,
          deviceScaleFactor: width < 600 ? 2 : 1,
        });
        const page = await context.newPage();
        const response = await page.goto(`${base}/${DOMAIN}?from=2026-04-01&to=2026-04-10`);
        assert.equal(response?.status(), 200);
        await page.screenshot({ path: `${OUTPUT}long-values-${width}-${scheme}.png`, fullPage: true });
        // The fixture reached the lists it is meant to stretch.
        for (const [stat, text] of [
          ["page", LONG_PATH],
          ["city", "Santo Cristo (Cidade Universitaria"],
          ["event", "x".repeat(200)],
        ] as const)
          assert.ok(
            ((await page.locator(`#list-${stat} .text`).allTextContents()) ?? []).some((label) =>
              label.includes(text),
            ),
            `the ${stat} list shows its long value`,
          );
        const layout = await page.evaluate<Layout>(MEASURE);
        assert.deepEqual(layout.countsOutside, [], "every count is inside its card");
        assert.ok(
          layout.scrollWidth <= layout.clientWidth,
          `the page is ${layout.scrollWidth - layout.clientWidth}px wider than the window`,
        );
        assert.ok(layout.cut >= 4, `long labels are cut (${layout.cut} were)`);
        assert.deepEqual(layout.cutWithoutTitle, [], "cut labels end in an ellipsis and keep a title");
        assert.ok(layout.headingFits, "the domain fits the heading");
        assert.ok(layout.domainLines <= 3, `the domain takes ${layout.domainLines} lines`);
        assert.equal(layout.domainTitle, DOMAIN);
        await context.close();
      });
    }
  }

  for (const width of [390, 1280]) {
    for (const scheme of ["light", "dark"] as const) {
      it(`shows long values whole in a list opened in full at ${width}px in ${scheme} mode`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          colorScheme: scheme,
          deviceScaleFactor: width < 600 ? 2 : 1,
        });
        const page = await context.newPage();
        for (const [stat, text] of [
          ["page", LONG_PATH],
          ["referrer", `${"very-long-referring-host-name-".repeat(4)}example.org`],
          ["campaign", "NoSpacesInThisCampaignName".repeat(8)],
          ["event", "x".repeat(200)],
          ["city", "Santo Cristo (Cidade Universitaria"],
        ] as const) {
          const response = await page.goto(`${base}/${DOMAIN}?from=2026-04-01&to=2026-04-10&details=${stat}`);
          assert.equal(response?.status(), 200);
          await page.screenshot({
            path: `${OUTPUT}full-list-${stat}-${width}-${scheme}.png`,
            fullPage: true,
          });
          const list = await page.evaluate<FullList>(MEASURE_FULL_LIST);
          assert.ok(
            list.names.some((name) => name.includes(text)),
            `the ${stat} list shows its long value`,
          );
          assert.deepEqual(list.clipped, [], `no ${stat} is cut`);
          // On a desktop the shorter of them fit one line; the 300-character path does not.
          if (width < 600 || stat === "page")
            assert.ok(list.mostLines >= 2, `the longest ${stat} wraps (${list.mostLines} lines)`);
          assert.deepEqual(list.countsHidden, [], `every ${stat} count is whole, at the card's right`);
          assert.ok(
            list.scrollWidth <= list.innerWidth,
            `the ${stat} list is ${list.scrollWidth - list.innerWidth}px wider than the window`,
          );
        }
        // A wrapped value is still the link that filters by it, from the keyboard too.
        await page.goto(`${base}/${DOMAIN}?from=2026-04-01&to=2026-04-10&details=page`);
        await page.locator(`#details-page tr[data-value="${LONG_PATH}"] a.text`).focus();
        await page.keyboard.press("Enter");
        await page.waitForURL(/filters=page/);
        assert.match((await page.locator(".chip .chip-text").textContent()) ?? "", /^Page is \/x{299}/);
        await context.close();
      });
    }
  }

  for (const width of [390, 1280]) {
    for (const [from, to, points] of [
      ["2026-04-02", "2026-04-02", 24],
      ["2026-03-12", "2026-04-10", 30],
      ["2025-04-11", "2026-04-10", 53],
    ] as const) {
      it(`charts ${from} to ${to} as ${points} points at ${width}px, with dates that fit`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${base}/${DOMAIN}?from=${from}&to=${to}`);
        const chart = page.locator("section.chart");
        await chart.screenshot({ path: `${OUTPUT}chart-${points}-points-${width}.png` });
        assert.equal(await chart.locator(".plot rect.hit").count(), points);
        const measured = await page.evaluate<{ figure: Box; labels: Box[]; overflow: number }>(`(() => {
          const box = (element) => {
            const { left, right } = element.getBoundingClientRect();
            return { left, right, text: element.textContent };
          };
          const labels = [...document.querySelectorAll(".chart .x-labels text")]
            .filter((label) => getComputedStyle(label).display !== "none")
            .map(box)
            .sort((a, b) => a.left - b.left);
          return {
            figure: box(document.querySelector(".chart .figure")),
            labels,
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          };
        })()`);
        const { figure, labels } = measured;
        assert.equal(labels.length, width < 600 ? 3 : 5, "five dates, three on a phone");
        for (const [index, label] of labels.entries()) {
          assert.ok(
            label.left >= figure.left && label.right <= figure.right,
            `${label.text} is under the chart`,
          );
          const next = labels[index + 1];
          if (next) assert.ok(label.right + 4 <= next.left, `${label.text} and ${next.text} do not touch`);
        }
        assert.ok(measured.overflow <= 0, `the page is ${measured.overflow}px wider than the window`);
        await context.close();
      });
    }
  }
});
