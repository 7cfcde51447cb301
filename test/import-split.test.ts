// A visitor is the same website + IP + user agent within one UTC day however an import is
// split: the same events sent in one request, in many (with a server restart between
// them), or moved on by `analytics export` and `analytics import` (which stores them
// 10,000 at a time) give identical statistics, and the visitors of each day are the
// distinct address and browser pairs of that day.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { STATS } from "../src/stats/catalog.js";
import { runCli } from "./support/cli.js";
import { EVENT_STORES } from "./support/event-stores.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { freshMetadata } from "./support/test-metadata.js";

const DOMAIN = "split.example";
/** Weeks after the imported days: their salts are not today's or yesterday's. */
const NOW = "2026-05-20T12:00:00Z";
const DAYS = ["2026-05-01", "2026-05-02", "2026-05-03"];
const BROWSERS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
];
const PAGES = ["/", "/pricing", "/docs/start", "/blog/post?id=3"];
const REFERRERS = ["", "https://www.google.com/", `https://${DOMAIN}/`, "https://news.ycombinator.com/"];

type Rows = [string, number][];
type ImportEvent = Record<string, unknown>;

/**
 * `perDay` events a day for `visitors` visitors, in time order: each visitor comes back all
 * day long, so a request of a time-ordered split holds only part of a visitor's day.
 */
function events(websiteId: number, perDay: number, visitors: number): ImportEvent[] {
  const all: ImportEvent[] = [];
  for (const day of DAYS) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let k = 0; k < perDay; k++) {
      const visitor = (k * 7) % visitors;
      all.push({
        website_id: websiteId,
        ts: new Date(start + Math.floor((k * 86_400_000) / perDay)).toISOString(),
        page: `https://${DOMAIN}${PAGES[k % PAGES.length]}`,
        referrer: REFERRERS[(k >> 2) % REFERRERS.length],
        screen_resolution: visitor % 2 === 0 ? "1920x1080" : "390x844",
        ip: `81.2.${69 + (visitor >> 8)}.${visitor & 255}`,
        user_agent: BROWSERS[visitor % BROWSERS.length],
        accept_language: visitor % 3 === 0 ? "fr-CH,fr;q=0.9" : "en-GB,en;q=0.8",
        ...(k % 11 === 0 ? { event: { name: "Signup", value: "", unit: "" } } : {}),
      });
    }
  }
  return all;
}

async function statRows(t: TestApp, key: string, id: number, name: string): Promise<Rows> {
  const rows: Rows = [];
  for (let page = 1; ; page++) {
    const response = await t.call(key, {
      url: `/api/v1/stats/${id}?name=${name}&from=${DAYS[0]}&to=${DAYS[DAYS.length - 1]}&per_page=100&page=${page}`,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    rows.push(
      ...body.data.map((row: { value: string; count: number }): [string, number] => [row.value, row.count]),
    );
    if (page >= body.last_page) return rows;
  }
}

async function allStats(t: TestApp, key: string, id: number): Promise<Record<string, Rows>> {
  const result: Record<string, Rows> = {};
  for (const stat of STATS) result[stat.name] = await statRows(t, key, id, stat.name);
  return result;
}

async function addWebsite(t: TestApp, key: string): Promise<number> {
  const created = await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: DOMAIN } });
  assert.equal(created.statusCode, 201, created.body);
  return created.json().data.id;
}

async function send(t: TestApp, key: string, batch: ImportEvent[]): Promise<void> {
  const response = await t.call(key, { method: "POST", url: "/api/v1/events", json: { events: batch } });
  assert.equal(response.statusCode, 202, response.body);
  assert.equal(response.json().accepted, batch.length);
}

/** The distinct (address, browser) pairs of each day: the contract's visitors. */
function expectedVisitors(all: ImportEvent[]): Rows {
  const perDay = new Map<string, Set<string>>();
  for (const event of all) {
    const day = String(event.ts).slice(0, 10);
    if (event.event) continue; // a custom event is not a pageview
    const seen = perDay.get(day) ?? new Set<string>();
    seen.add(`${event.ip} ${event.user_agent}`);
    perDay.set(day, seen);
  }
  return [...perDay].map(([day, seen]): [string, number] => [day, seen.size]);
}

for (const store of EVENT_STORES) {
  describe(`an import split into requests (${store.name} event store)`, { skip: store.skip }, () => {
    it("counts what one request counts, across requests and a restart", async () => {
      const clock = new ManualClock(NOW);
      const whole = await createTestApp({}, clock, { store });
      let wholeStats: Record<string, Rows>;
      let all: ImportEvent[];
      try {
        const key = await whole.createUser();
        const id = await addWebsite(whole, key);
        all = events(id, 1_000, 150);
        await send(whole, key, all);
        wholeStats = await allStats(whole, key, id);
      } finally {
        await whole.close();
      }
      const byDay = (rows: Rows | undefined) => [...(rows ?? [])].sort(([a], [b]) => a.localeCompare(b));
      assert.deepEqual(byDay(wholeStats.visitors), expectedVisitors(all));

      // The same events 250 at a time; the embedded store restarts half way (the next
      // request must find the visitors of the days it already holds).
      const metadata = await freshMetadata();
      const dataDir = tempDir();
      const provisioned = await store.provision();
      const open = () =>
        createTestApp(provisioned.env, clock, { stores: { dataDir, metadataEnv: metadata.env } });
      let split = await open();
      try {
        const key = await split.createUser();
        const id = await addWebsite(split, key);
        const batches = events(id, 1_000, 150);
        for (let start = 0; start < batches.length; start += 250) {
          if (start === 1_500) {
            await split.close();
            split = await open();
          }
          await send(split, key, batches.slice(start, start + 250));
        }
        const splitStats = await allStats(split, key, id);
        for (const stat of STATS)
          assert.deepEqual(splitStats[stat.name], wholeStats[stat.name], `${stat.name} split as whole`);
      } finally {
        await split.close();
        await provisioned.dispose();
        await metadata.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}

describe("an import moved on by analytics export and analytics import", () => {
  const work = tempDir("analytics-split-");
  const source = path.join(work, "source");
  const target = path.join(work, "target");
  after(() => fs.rmSync(work, { recursive: true, force: true }));
  let metadataEnv: Record<string, string> = {};
  let drop: () => Promise<void> = async () => undefined;
  let key = "";
  let id = 0;
  let sourceStats: Record<string, Rows> = {};
  let all: ImportEvent[] = [];

  before(async () => {
    const metadata = await freshMetadata();
    metadataEnv = metadata.env;
    drop = metadata.drop;
    const app = await createTestApp({}, new ManualClock(NOW), { stores: { dataDir: source, metadataEnv } });
    try {
      key = await app.createUser();
      id = await addWebsite(app, key);
      // More than the 10,000 events `analytics import` stores at a time.
      all = events(id, 3_600, 400);
      for (let start = 0; start < all.length; start += 5_400)
        await send(app, key, all.slice(start, start + 5_400));
      sourceStats = await allStats(app, key, id);
    } finally {
      await app.close();
    }
  });
  after(() => drop());

  it("keeps every statistic, visitors included", async () => {
    const byDay = (rows: Rows | undefined) => [...(rows ?? [])].sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(byDay(sourceStats.visitors), expectedVisitors(all), "two requests count as one");
    const file = path.join(work, "events.ndjson");
    const exported = runCli(["export", "--data-dir", source], metadataEnv);
    assert.equal(exported.status, 0, exported.stderr);
    fs.writeFileSync(file, exported.stdout);
    fs.mkdirSync(target);
    if (!metadataEnv.ANALYTICS_DATABASE_URL)
      fs.copyFileSync(path.join(source, "metadata.sqlite"), path.join(target, "metadata.sqlite"));
    const imported = runCli(["import", "--file", file, "--data-dir", target], metadataEnv);
    assert.equal(imported.status, 0, imported.stderr);
    assert.ok(all.length > 10_000, "more events than the command stores at a time");
    const app = await createTestApp({}, new ManualClock(NOW), { stores: { dataDir: target, metadataEnv } });
    try {
      const targetStats = await allStats(app, key, id);
      for (const stat of STATS)
        assert.deepEqual(
          targetStats[stat.name],
          sourceStats[stat.name],
          `${stat.name} after export and import`,
        );
    } finally {
      await app.close();
    }
  });
});
