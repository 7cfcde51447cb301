// Email reports end to end (CONTRACT.md section 7): traffic imported through the API, the
// reports sent by nodemailer to a real SMTP server on 127.0.0.1, then read back. Checks
// recipients, content and numbers (including events on both sides of the week's UTC
// boundaries), escaping, that no report is sent twice (also by a second sender on its own
// connection), retries after a refused send, and the scheduler in the container.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { escapeHtml } from "../src/pages/html.js";
import type { Mailer } from "../src/reports/mailer.js";
import { lastFullPeriod } from "../src/reports/report-period.js";
import { ReportScheduler } from "../src/reports/report-scheduler.js";
import { createReportSender, type ReportSender } from "../src/reports/report-sender.js";
import { SmtpMailer } from "../src/reports/smtp-mailer.js";
import { openMetadataStore } from "../src/storage/open-storage.js";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "./support/smtp-sink.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const NOW = "2026-04-13T06:00:00Z"; // Monday: reports of 2026-04-06 .. 2026-04-12 are due
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const V1 = { ip: "81.2.69.142", user_agent: CHROME };
const V2 = { ip: "8.8.8.8", user_agent: CHROME };
const V3 = { ip: "1.1.1.1", user_agent: CHROME };

async function createWebsite(
  t: TestApp,
  key: string,
  domain: string,
  email: 0 | 1,
  timezone = "UTC",
): Promise<number> {
  const response = await t.call(key, {
    method: "POST",
    url: "/api/v1/websites",
    form: { domain, email: String(email), timezone },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data.id;
}

async function importEvents(t: TestApp, key: string, events: object[]): Promise<void> {
  const response = await t.call(key, { method: "POST", url: "/api/v1/events", json: { events } });
  assert.equal(response.statusCode, 202, response.body);
  assert.equal(response.json().accepted, events.length);
}

function mailTo(sink: SmtpSink, address: string): ReceivedMail[] {
  return sink.received.filter((mail) => mail.envelopeTo.includes(address));
}

describe("email reports", () => {
  const clock = new ManualClock(NOW);
  const period = lastFullPeriod("week", clock.now());
  let sink: SmtpSink;
  let t: TestApp;
  let mailer: SmtpMailer;

  before(async () => {
    sink = await startSmtpSink();
    t = await createTestApp(
      {
        ANALYTICS_SMTP_URL: sink.url,
        ANALYTICS_MAIL_FROM: "Site Stats <reports@stats.example.org>",
        ANALYTICS_PUBLIC_URL: "https://stats.example.org",
      },
      clock,
    );
    mailer = new SmtpMailer(sink.url);
    const alice = (await t.container.users.create({ email: "alice@example.org", name: "Alice <& Co>" }))
      .apiKey;
    const bob = (await t.container.users.create({ email: "bob@example.org" })).apiKey;
    const carol = (await t.container.users.create({ email: "carol@example.org" })).apiKey;
    await t.container.users.create({ email: "dave@example.org" }); // no website at all

    const alpha = await createWebsite(t, alice, "alpha.example", 1);
    // Counted in its own days, which the report names (its period's dates are local dates).
    await createWebsite(t, alice, "beta.example", 1, "Europe/Berlin");
    const gamma = await createWebsite(t, alice, "gamma.example", 0);
    const bobSite = await createWebsite(t, bob, "bob.example", 0);
    await createWebsite(t, carol, "carol.example", 1);

    const page = (path: string) => `https://alpha.example${path}`;
    await importEvents(t, alice, [
      // The week before: 2 pageviews by 2 visitor-days.
      {
        ...V2,
        website_id: alpha,
        ts: "2026-04-01T10:00:00Z",
        page: page("/"),
        referrer: "https://google.com/",
      },
      { ...V1, website_id: alpha, ts: "2026-04-05T23:59:59Z", page: page("/"), referrer: "" },
      // The week reported: 4 pageviews by 3 visitor-days (V1 on two days counts twice).
      {
        ...V1,
        website_id: alpha,
        ts: "2026-04-06T00:00:00Z",
        page: page("/pricing"),
        referrer: "https://www.google.com/",
      },
      {
        ...V1,
        website_id: alpha,
        ts: "2026-04-06T00:05:00Z",
        page: page("/?a=1&b=2"),
        referrer: page("/pricing"),
      },
      {
        ...V2,
        website_id: alpha,
        ts: "2026-04-08T12:00:00Z",
        page: page("/pricing"),
        referrer: "https://news.ycombinator.com/x",
      },
      { ...V1, website_id: alpha, ts: "2026-04-12T23:59:59Z", page: page("/pricing"), referrer: "" },
      // The next week: not in this report.
      {
        ...V3,
        website_id: alpha,
        ts: "2026-04-13T00:00:00Z",
        page: page("/late"),
        referrer: "https://late.example/",
      },
      // Traffic of a website without email reports.
      {
        ...V3,
        website_id: gamma,
        ts: "2026-04-08T12:00:00Z",
        page: "https://gamma.example/secret",
        referrer: "",
      },
    ]);
    await importEvents(t, bob, [
      { ...V3, website_id: bobSite, ts: "2026-04-08T12:00:00Z", page: "https://bob.example/", referrer: "" },
    ]);
  });

  after(async () => {
    mailer.close();
    await t.close();
    await sink.close();
  });

  it("lists what would be sent without sending or recording anything", async () => {
    const sender = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const messages = await sender.preview(period);
    assert.deepEqual(
      messages.map((message) => message.to),
      ["alice@example.org", "carol@example.org"],
    );
    assert.equal(sink.received.length, 0);
    assert.deepEqual(await t.container.metadata.reports.sentUsers(period.key), new Set());
  });

  it("sends one email per user with email-report websites, with the period's numbers", async () => {
    const sender = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const result = await sender.send(period, mailer);
    assert.deepEqual(result.sent, ["alice@example.org", "carol@example.org"]);
    assert.deepEqual(result.failed, []);
    assert.equal(sink.received.length, 2);
    assert.equal(mailTo(sink, "bob@example.org").length, 0, "bob has only email = 0 websites");
    assert.equal(mailTo(sink, "dave@example.org").length, 0, "dave has no website");

    const [mail] = mailTo(sink, "alice@example.org");
    assert.ok(mail);
    assert.equal(mail.headers.get("from"), "Site Stats <reports@stats.example.org>");
    assert.equal(mail.envelopeFrom, "reports@stats.example.org");
    assert.equal(mail.headers.get("to"), "alice@example.org");
    assert.equal(mail.subject, "Weekly analytics report: 2026-04-06 to 2026-04-12");
    assert.equal(
      mail.text,
      [
        "Hello Alice <& Co>,",
        "",
        "Your weekly report for 2026-04-06 to 2026-04-12.",
        "",
        "alpha.example",
        "  Visitors:  3 (+50% on the previous week (2))",
        "  Pageviews: 4 (+100% on the previous week (2))",
        "  Top pages:",
        "    3  /pricing",
        "    1  /?a=1&b=2",
        "  Top referrers:",
        "    1  (direct)",
        "    1  google.com",
        "    1  news.ycombinator.com",
        "  Statistics: https://stats.example.org/alpha.example",
        "",
        "beta.example (days in Europe/Berlin)",
        "  Visitors:  0 (none the previous week)",
        "  Pageviews: 0 (none the previous week)",
        "  Top pages: none",
        "  Top referrers: none",
        "  Statistics: https://stats.example.org/beta.example",
        "",
        "--",
        "You receive this report because email reports are on for these websites. To stop them, set email to 0 on each website (PUT /api/v1/websites/{id}).",
        "",
      ].join("\n"),
    );
    assert.doesNotMatch(mail.text, /gamma|secret|late/);
    assert.match(mail.html, /Hello Alice &lt;&amp; Co&gt;,/);
    assert.match(mail.html, /<a href="https:\/\/stats\.example\.org\/alpha\.example">alpha\.example<\/a>/);
    assert.match(mail.html, />beta\.example \(days in Europe\/Berlin\)<\/a>/);
    assert.doesNotMatch(`${mail.text}${mail.html}`, /UTC/);
    assert.match(mail.html, />\/\?a=1&amp;b=2</);
    assert.match(mail.html, />\+50% on the previous week \(2\)</);
    assert.doesNotMatch(mail.html, /Alice <&|gamma/);

    const [carol] = mailTo(sink, "carol@example.org");
    assert.match(carol?.text ?? "", /^Hello,\n/);
    assert.match(carol?.text ?? "", /carol\.example\n {2}Visitors: {2}0 /);
  });

  it("never sends a period's report twice, also from a second sender on its own connection", async () => {
    const again = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const second = await again.send(period, mailer);
    assert.deepEqual(second, { period, sent: [], failed: [], skipped: 2 });
    const otherMetadata = openMetadataStore(t.container.config);
    try {
      const otherServer = createReportSender(t.container.config, otherMetadata, t.container.events, clock);
      assert.deepEqual((await otherServer.send(period, mailer)).sent, []);
      assert.deepEqual(await otherServer.preview(period), []);
    } finally {
      await otherMetadata.close();
    }
    assert.equal(sink.received.length, 2);
  });

  it("records a refused send as failed and sends it on the next run", async () => {
    const next = lastFullPeriod("week", new Date("2026-04-20T06:00:00Z"));
    sink.refuse.add("carol@example.org");
    const sender = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const first = await sender.send(next, mailer);
    assert.deepEqual(first.sent, ["alice@example.org"]);
    assert.equal(first.failed.length, 1);
    assert.equal(first.failed[0]?.email, "carol@example.org");
    assert.match(first.failed[0]?.error ?? "", /550/);
    const carolId = (await t.container.metadata.users.findByEmail("carol@example.org"))?.id ?? 0;
    const logged = await t.container.metadata.reports.find(carolId, next.key);
    assert.equal(logged?.status, "failed");
    assert.match(logged?.lastError ?? "", /Mailbox unavailable/);

    sink.refuse.clear();
    const retry = await sender.send(next, mailer);
    assert.deepEqual(retry.sent, ["carol@example.org"], "only the failed report is sent again");
    assert.equal(retry.skipped, 1);
    assert.equal((await t.container.metadata.reports.find(carolId, next.key))?.attempts, 2);
    assert.equal(mailTo(sink, "alice@example.org").length, 2);
    assert.equal(mailTo(sink, "carol@example.org").length, 2);
    const [, carolsSecond] = mailTo(sink, "carol@example.org");
    assert.equal(carolsSecond?.subject, "Weekly analytics report: 2026-04-13 to 2026-04-19");
  });

  it("sends the due period once from the server's scheduler, which closes with the container", async () => {
    const scheduler = t.container.reports;
    assert.ok(scheduler, "a scheduler exists when ANALYTICS_SMTP_URL is set");
    clock.set("2026-04-27T07:00:00Z"); // 2026-04-20 .. 26 is due
    const before = sink.received.length;
    const result = await scheduler.runOnce();
    assert.equal(result.period.key, "week:2026-04-20");
    assert.deepEqual(result.sent, ["alice@example.org", "carol@example.org"]);
    assert.equal((await scheduler.runOnce()).sent.length, 0);
    assert.equal(sink.received.length, before + 2);

    // Started by `serve`: it catches up the due period at once; close() waits for that run.
    clock.set("2026-05-04T07:00:00Z");
    const logged: string[] = [];
    const log = {
      info: (_details: object, message: string) => logged.push(message),
      error: (_details: object, message: string) => logged.push(`error: ${message}`),
    };
    scheduler.start(log);
    await scheduler.settled();
    assert.equal(sink.received.length, before + 4);
    assert.equal(sink.received.at(-1)?.subject, "Weekly analytics report: 2026-04-27 to 2026-05-03");
    assert.deepEqual(logged, ["email reports sent"]);

    // Closing stops a run between sends: the shutdown does not wait for every email.
    clock.set("2026-05-11T07:00:00Z"); // 2026-05-04 .. 10 is due, and nobody has had it
    await scheduler.close();
    const afterClose = await scheduler.runOnce();
    assert.equal(afterClose.period.key, "week:2026-05-04");
    assert.deepEqual(afterClose.sent, [], "a closed scheduler stops before the next send");
    assert.equal(sink.received.length, before + 4);
    assert.deepEqual(await t.container.metadata.reports.sentUsers("week:2026-05-04"), new Set());
  });
});

describe("email report rendering", () => {
  it("escapes every character that matters in HTML", () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});

describe("email reports without SMTP", () => {
  it("has no scheduler when ANALYTICS_SMTP_URL is unset", async () => {
    const t = await createTestApp();
    try {
      assert.equal(t.container.reports, null);
    } finally {
      await t.close();
    }
  });
});

describe("the report scheduler", () => {
  it("sends a period that fell due while a run was sending at once, not a period later", async () => {
    // The catch-up run starts 1 s before Monday 06:00 and takes 2 s: the week due at 06:00
    // must follow as soon as it ends.
    const clock = new ManualClock("2026-04-20T05:59:59Z");
    const sent: string[] = [];
    const sender = {
      send: async (period: { key: string }) => {
        sent.push(period.key);
        clock.advance(2_000);
        return { sent: [], failed: [] };
      },
    } as unknown as ReportSender;
    const mailer: Mailer = { send: async () => undefined, close: () => undefined };
    const scheduler = new ReportScheduler(sender, mailer, "week", clock);
    scheduler.start({ info: () => undefined, error: () => undefined });
    for (let i = 0; i < 5 && sent.length < 2; i++) await scheduler.settled();
    await scheduler.close();
    assert.deepEqual(sent, ["week:2026-04-06", "week:2026-04-13"]);
  });
});

describe("the report scheduler's timer", () => {
  it("sends the next period's reports when they fall due", async () => {
    const sink = await startSmtpSink();
    // A clock 1.5 s before a due time (Monday 06:00 UTC) that runs at the real pace.
    const offset = Date.parse("2026-04-20T05:59:58.500Z") - Date.now();
    const clock = { now: () => new Date(Date.now() + offset) };
    const t = await createTestApp({ ANALYTICS_SMTP_URL: sink.url }, clock);
    try {
      const key = (await t.container.users.create({ email: "timer@example.org" })).apiKey;
      await createWebsite(t, key, "timer.example", 1);
      t.container.reports?.start({ info: () => undefined, error: () => undefined });
      const deadline = Date.now() + 20_000;
      while (sink.received.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(
        sink.received.map((mail) => mail.subject),
        [
          "Weekly analytics report: 2026-04-06 to 2026-04-12", // caught up at start
          "Weekly analytics report: 2026-04-13 to 2026-04-19", // due at 06:00
        ],
      );
    } finally {
      await t.close();
      await sink.close();
    }
  });
});
