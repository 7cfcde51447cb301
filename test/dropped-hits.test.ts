// What collection kept out, counted for the website a dropped hit was for
// (ingest/drop-counter.ts) and read through GET /api/v1/stats/{id}/dropped: each reason on
// the website's local day, nothing for hits no website owns, every day of the range listed,
// the counts kept across a restart and a failed write, and gone with the website.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { ConfigError } from "../src/config.js";
import { DropCounter } from "../src/ingest/drop-counter.js";
import { zoneRule } from "../src/stats/time-zone.js";
import type { DropCount, DropRepository } from "../src/storage/ports.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { freshMetadata } from "./support/test-metadata.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

interface Sent {
  page: string;
  ip?: string;
  userAgent?: string;
  event?: unknown;
}

/** Posts one hit to the collection endpoint; the drop reason it answered, if any. */
async function send(t: TestApp, { page, ip = "81.2.69.1", userAgent = CHROME, event }: Sent) {
  const response = await t.app.inject({
    method: "POST",
    url: "/api/event",
    remoteAddress: ip,
    headers: { "content-type": "text/plain", "user-agent": userAgent },
    payload: JSON.stringify(event === undefined ? { page } : { page, event }),
  });
  assert.equal(response.statusCode, 202);
  return response.headers["x-analytics-dropped"];
}

describe("dropped hits, per website, day and reason", () => {
  // 03:30 UTC on 2 March is still 1 March in New York: drops count on the website's day.
  const clock = new ManualClock("2026-03-02T03:30:00Z");
  let t: TestApp;
  let key: string;
  let shop = 0;
  let other = 0;
  const dropped = (websiteId: number, from: string, to: string, as = key) =>
    t.call(as, { url: `/api/v1/stats/${websiteId}/dropped?from=${from}&to=${to}` });

  before(async () => {
    t = await createTestApp({ ANALYTICS_COLLECT_RATE_LIMIT: "4" }, clock);
    key = await t.createUser();
    const create = async (domain: string) => {
      const created = await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain, timezone: "America/New_York", exclude_ips: "203.0.113.0/24" },
      });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().data.id as number;
    };
    shop = await create("shop.example");
    other = await create("other.example");
  });
  after(() => t.close());

  it("counts each reason on the website's local day, and nothing for hits no website owns", async () => {
    // Each from its own address: the allowance (4 a minute per address) is tried below.
    const hits: Sent[] = [
      { page: "https://shop.example/" },
      { page: "https://shop.example/", userAgent: "curl/8.5.0" },
      { page: "https://shop.example/", userAgent: "Googlebot/2.1 (+http://www.google.com/bot.html)" },
      { page: "https://shop.example/", ip: "203.0.113.9" },
      { page: "https://shop.example/", ip: "3.120.0.10" }, // Amazon's cloud
      { page: "https://shop.example/", event: { name: " : " } },
      { page: "https://other.example/", userAgent: "curl/8.5.0" },
      { page: "https://nobody.example/", userAgent: "curl/8.5.0" },
      { page: "not a url" },
    ];
    const reasons = [];
    for (const [i, hit] of hits.entries()) reasons.push(await send(t, { ip: `81.2.69.${i + 1}`, ...hit }));
    assert.deepEqual(reasons, [
      undefined,
      "bot",
      "bot",
      "excluded_ip",
      "datacenter",
      "invalid",
      "bot",
      "unknown_website",
      "invalid",
    ]);
    // The allowance is 4 hits a minute per address: the 5th and 6th from one address are refused.
    const flood = [];
    for (let i = 0; i < 6; i++)
      flood.push(await send(t, { page: "https://shop.example/", ip: "81.2.69.142" }));
    assert.deepEqual(flood.slice(4), ["rate_limited", "rate_limited"]);

    const answer = await dropped(shop, "2026-02-28", "2026-03-02");
    assert.equal(answer.statusCode, 200, answer.body);
    const none = {
      total: 0,
      bot: 0,
      excluded_ip: 0,
      spam: 0,
      datacenter: 0,
      invalid: 0,
      rate_limited: 0,
      unavailable: 0,
    };
    const counted = {
      total: 7,
      bot: 2,
      excluded_ip: 1,
      spam: 0,
      datacenter: 1,
      invalid: 1,
      rate_limited: 2,
      unavailable: 0,
    };
    assert.deepEqual(answer.json(), {
      data: {
        days: [
          { day: "2026-02-28", ...none },
          { day: "2026-03-01", ...counted },
          { day: "2026-03-02", ...none },
        ],
        totals: counted,
      },
      status: 200,
    });
    const otherSite = (await dropped(other, "2026-03-01", "2026-03-01")).json().data.totals;
    assert.equal(otherSite.bot, 1, "another website's drops are its own");
    assert.equal(otherSite.total, 1);
  });

  it("adds later drops to the day's counts, the next day's apart", async () => {
    clock.advance(6 * 3_600_000); // 09:30 UTC, 2 March in New York too
    await send(t, { page: "https://shop.example/", userAgent: "curl/8.5.0" });
    const days = (await dropped(shop, "2026-03-01", "2026-03-02")).json().data.days;
    assert.equal(days[0].bot, 2, "1 March unchanged");
    assert.equal(days[1].bot, 1, "2 March");
  });

  it("answers 422 for a bad range, 404 for another user's website, 401 without a key", async () => {
    const backwards = await dropped(shop, "2026-03-02", "2026-03-01");
    assert.equal(backwards.statusCode, 422);
    assert.deepEqual(backwards.json().message, { to: ["The to must be a date after or equal to from."] });
    const notADay = await dropped(shop, "2026-02-30", "2026-03-01");
    assert.equal(notADay.statusCode, 422);
    assert.deepEqual(Object.keys(notADay.json().message), ["from"], notADay.body);
    const stranger = await t.createUser();
    assert.equal((await dropped(shop, "2026-03-01", "2026-03-01", stranger)).statusCode, 404);
    assert.equal(
      (await t.call(null, { url: `/api/v1/stats/${shop}/dropped?from=2026-03-01&to=2026-03-01` })).statusCode,
      401,
    );
  });

  it("forgets a deleted website's counts, and a pending count of it does not stop the others", async () => {
    const gone = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "gone.example" } })
    ).json().data.id as number;
    await send(t, { page: "https://gone.example/", userAgent: "curl/8.5.0" });
    await t.container.drops.flush();
    await send(t, { page: "https://gone.example/", userAgent: "curl/8.5.0" });
    await send(t, { page: "https://shop.example/", userAgent: "curl/8.5.0" });
    assert.equal((await t.call(key, { method: "DELETE", url: `/api/v1/websites/${gone}` })).statusCode, 200);
    await t.container.drops.flush();
    assert.deepEqual(await t.container.metadata.drops.read(gone, "2026-01-01", "2026-12-31"), []);
    assert.equal((await dropped(shop, "2026-03-02", "2026-03-02")).json().data.totals.bot, 2);
  });

  it("adds a write of many counts all or nothing, so the retry of a failed one adds each once", async () => {
    // 600 days of counts take two statements; the second fails (a reason the table refuses,
    // standing for a connection lost half way), so the write fails and is retried whole.
    const counts: DropCount[] = Array.from({ length: 600 }, (_, i) => ({
      websiteId: other,
      day: new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10),
      reason: "bot",
      count: 1,
    }));
    const broken = counts.map((count, i) =>
      i === 550 ? { ...count, reason: null as unknown as string } : count,
    );
    await assert.rejects(t.container.metadata.drops.add(broken));
    assert.deepEqual(
      await t.container.metadata.drops.read(other, "2024-01-01", "2025-12-31"),
      [],
      "nothing of the failed write",
    );
    await t.container.metadata.drops.add(counts);
    const read = await t.container.metadata.drops.read(other, "2024-01-01", "2025-12-31");
    assert.equal(read.length, 600);
    assert.ok(
      read.every((count) => count.count === 1),
      "each day counted once",
    );
  });
});

describe("referrer spam", () => {
  it("drops a hit whose referrer is a listed host or a subdomain of one, for every website, and counts it", async () => {
    const dir = tempDir();
    const list = `${dir}/spammers.txt`;
    fs.writeFileSync(
      list,
      "# the installation's own list\nspam.example\n\nwww.Bad-Referrer.example  # a comment\n",
    );
    const t = await createTestApp({ ANALYTICS_REFERRER_SPAM: list }, new ManualClock("2026-06-01T12:00:00Z"));
    try {
      const key = await t.createUser();
      const id = (
        await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "site.example" } })
      ).json().data.id as number;
      const from = async (referrer: string, i: number) => {
        const response = await t.app.inject({
          method: "POST",
          url: "/api/event",
          remoteAddress: `81.2.69.${i}`,
          headers: { "content-type": "text/plain", "user-agent": CHROME },
          payload: JSON.stringify({ page: "https://site.example/", referrer }),
        });
        return response.headers["x-analytics-dropped"];
      };
      const referrers = [
        "https://spam.example/offer",
        "http://www.deep.sub.spam.example/",
        "https://bad-referrer.example/?q=1",
        "https://notspam.example/",
        "https://spam.example.org/",
        "",
      ];
      const answers = [];
      for (const [i, referrer] of referrers.entries()) answers.push(await from(referrer, i + 1));
      assert.deepEqual(answers, ["spam", "spam", "spam", undefined, undefined, undefined]);
      const dropped = await t.call(key, { url: `/api/v1/stats/${id}/dropped?from=2026-06-01&to=2026-06-01` });
      assert.equal(dropped.json().data.totals.spam, 3);
      assert.equal(dropped.json().data.totals.total, 3);
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a list file that is not there, or a directory, naming the variable", async () => {
    await assert.rejects(
      createTestApp({ ANALYTICS_REFERRER_SPAM: "/nonexistent/spammers.txt" }),
      /ANALYTICS_REFERRER_SPAM="\/nonexistent\/spammers.txt": names no file/,
    );
    const dir = tempDir();
    try {
      await assert.rejects(
        createTestApp({ ANALYTICS_REFERRER_SPAM: dir }),
        (error: Error) =>
          error instanceof ConfigError &&
          error.message.includes(
            `ANALYTICS_REFERRER_SPAM=${JSON.stringify(dir)}: names a directory, not a file`,
          ),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("dropped hits across a restart", () => {
  it("keeps the counts of a stopped server", async () => {
    const clock = new ManualClock("2026-05-10T12:00:00Z");
    const metadata = await freshMetadata();
    const stores = { dataDir: tempDir(), metadataEnv: metadata.env };
    const first = await createTestApp({}, clock, { stores });
    let second: TestApp | null = null;
    try {
      const key = await first.createUser();
      const id = (
        await first.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "kept.example" } })
      ).json().data.id as number;
      for (let i = 0; i < 3; i++)
        await send(first, { page: "https://kept.example/", userAgent: "curl/8.5.0" });
      await first.close(); // writes the counts not written yet
      second = await createTestApp({}, clock, { stores });
      await send(second, { page: "https://kept.example/", userAgent: "curl/8.5.0" });
      const answer = await second.call(key, {
        url: `/api/v1/stats/${id}/dropped?from=2026-05-10&to=2026-05-10`,
      });
      assert.equal(answer.json().data.totals.bot, 4);
    } finally {
      await second?.close();
      await metadata.drop();
      fs.rmSync(stores.dataDir, { recursive: true, force: true });
    }
  });
});

describe("the drop counter", () => {
  const website = { id: 3, zone: zoneRule("Europe/Berlin") } as Parameters<DropCounter["count"]>[0];
  const at = Date.parse("2026-07-01T22:30:00Z"); // 2 July in Berlin

  it("writes each website, day and reason's count once per flush, and keeps them when the write fails", async () => {
    const written: DropCount[][] = [];
    let failing = true;
    const drops: DropRepository = {
      async add(counts) {
        if (failing) throw new Error("the store is down");
        written.push([...counts]);
      },
      async read() {
        return [];
      },
    };
    const counter = new DropCounter(drops, { intervalMs: 3_600_000 });
    try {
      counter.count(website, "bot", at);
      counter.count(website, "bot", at);
      counter.count(website, "excluded_ip", at);
      await assert.rejects(counter.flush(), /the store is down/);
      counter.count(website, "bot", at);
      failing = false;
      await counter.flush();
      assert.deepEqual(written, [
        [
          { websiteId: 3, day: "2026-07-02", reason: "bot", count: 3 },
          { websiteId: 3, day: "2026-07-02", reason: "excluded_ip", count: 1 },
        ],
      ]);
      await counter.flush();
      assert.equal(written.length, 1, "nothing more to write");
      counter.count(website, "rate_limited", at + 3_600_000);
    } finally {
      await counter.close();
    }
    assert.deepEqual(
      written[1],
      [{ websiteId: 3, day: "2026-07-02", reason: "rate_limited", count: 1 }],
      "close writes the rest",
    );
  });
});
