// `analytics reports send` and the scheduler of `analytics serve`, as separate processes
// against a real SMTP server on 127.0.0.1: dry run, usage errors, a refused send retried by
// the next run, no second send; the server sending the due report at start. The commands
// use the real clock, so the traffic is placed in the last full week of today.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createContainer } from "../src/container.js";
import { lastFullPeriod, latestDuePeriod } from "../src/reports/report-period.js";
import { runCliAsync, startServer } from "./support/cli.js";
import { type SmtpSink, startSmtpSink } from "./support/smtp-sink.js";
import { tempDir } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

/** Creates a user with one email-report website in `dataDir`, with pageviews on `days`. */
async function seed(dataDir: string, email: string, domain: string, days: string[]): Promise<void> {
  const container = await createContainer(loadConfig({ ANALYTICS_DATA_DIR: dataDir }));
  const app = await buildApp(container);
  try {
    const { apiKey } = await container.users.create({ email });
    const headers = { authorization: `Bearer ${apiKey}` };
    const created = await app.inject({
      method: "POST",
      url: "/api/v1/websites",
      headers,
      payload: { domain, email: 1 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const websiteId = created.json().data.id;
    const events = days.map((day) => ({
      website_id: websiteId,
      ts: `${day}T12:00:00Z`,
      page: `https://${domain}/docs`,
      referrer: "https://duckduckgo.com/",
      ip: "81.2.69.142",
      user_agent: CHROME,
    }));
    if (events.length > 0) {
      const imported = await app.inject({
        method: "POST",
        url: "/api/v1/events",
        headers,
        payload: { events },
      });
      assert.equal(imported.statusCode, 202, imported.body);
    }
  } finally {
    await app.close();
    await container.close();
  }
}

describe("analytics reports send", () => {
  const dataDir = tempDir("analytics-reports-cli-");
  const week = lastFullPeriod("week", new Date());
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    await seed(dataDir, "owner@example.org", "cli-report.example", [week.current.from, week.current.to]);
  });

  after(async () => {
    await sink.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints what it would send with --dry-run and sends nothing", async () => {
    const result = await runCliAsync(["reports", "send", "--dry-run", "--data-dir", dataDir], {
      ANALYTICS_PUBLIC_URL: "https://stats.example.org",
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^From: Analytics <analytics@localhost>\nTo: owner@example\.org\n/);
    assert.match(result.stdout, new RegExp(`Subject: Weekly analytics report: ${week.label}\n`));
    assert.match(result.stdout, /Visitors: {2}2 \(none the previous week\)/);
    assert.match(result.stdout, /Statistics: https:\/\/stats\.example\.org\/cli-report\.example/);
    assert.match(result.lastLine, /Dry run: 1 report\(s\) of .* would be sent; nothing was sent\./);
    assert.doesNotMatch(result.stderr, /Warning/, "the public URL is known");
    assert.equal(sink.received.length, 0);

    const monthly = await runCliAsync([
      "reports",
      "send",
      "--dry-run",
      "--period",
      "month",
      "--data-dir",
      dataDir,
    ]);
    assert.equal(monthly.status, 0, monthly.stderr);
    assert.match(monthly.stdout, /Subject: Monthly analytics report: \w+ \d{4}\n/);
  });

  it("says the links are a guess without ANALYTICS_PUBLIC_URL, and takes the server's settings", async () => {
    const defaults = await runCliAsync(["reports", "send", "--dry-run", "--data-dir", dataDir]);
    assert.equal(defaults.status, 0, defaults.stderr);
    assert.match(defaults.stdout, /Statistics: http:\/\/127\.0\.0\.1:8000\/cli-report\.example/);
    assert.match(
      defaults.stderr,
      /ANALYTICS_PUBLIC_URL is not set, so the links are a guess: http:\/\/127\.0\.0\.1:8000/,
    );
    const elsewhere = await runCliAsync(
      ["reports", "send", "--dry-run", "--port", "9123", "--data-dir", dataDir],
      {
        ANALYTICS_HOST: "10.0.0.5",
      },
    );
    assert.equal(elsewhere.status, 0, elsewhere.stderr);
    assert.match(elsewhere.stdout, /Statistics: http:\/\/10\.0\.0\.5:9123\/cli-report\.example/);
    assert.match(
      elsewhere.stderr,
      /a guess: http:\/\/10\.0\.0\.5:9123 \(from ANALYTICS_HOST and ANALYTICS_PORT/,
    );
  });

  it("refuses bad usage and a missing SMTP server with exit code 2", async () => {
    const noSmtp = await runCliAsync(["reports", "send", "--data-dir", dataDir]);
    assert.equal(noSmtp.status, 2);
    assert.match(noSmtp.stderr, /ANALYTICS_SMTP_URL is not set/);
    const badPeriod = await runCliAsync(["reports", "send", "--period", "year", "--data-dir", dataDir]);
    assert.equal(badPeriod.status, 2);
    assert.match(badPeriod.stderr, /--period must be one of: week, month/);
    const badUrl = await runCliAsync(["reports", "send", "--data-dir", dataDir], {
      ANALYTICS_SMTP_URL: "http://user:hunter2@mail.example.org",
    });
    assert.equal(badUrl.status, 2);
    assert.match(badUrl.stderr, /ANALYTICS_SMTP_URL: must be an smtp/);
    assert.doesNotMatch(badUrl.stderr, /hunter2/, "credentials are not echoed");
    assert.equal(sink.received.length, 0);
  });

  it("exits 1 when a send is refused, sends it on the next run, and never twice", async () => {
    const env = { ANALYTICS_SMTP_URL: sink.url };
    sink.refuse.add("owner@example.org");
    const refused = await runCliAsync(["reports", "send", "--data-dir", dataDir], env);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Could not send the report of .* to owner@example\.org: .*550/);
    sink.refuse.clear();

    const sent = await runCliAsync(["reports", "send", "--data-dir", dataDir], env);
    assert.equal(sent.status, 0, sent.stderr);
    assert.match(sent.stdout, /Sent the report of .* to owner@example\.org\./);
    assert.equal(sink.received.length, 1);
    assert.match(sink.received[0]?.text ?? "", /cli-report\.example\n {2}Visitors: {2}2 /);

    const again = await runCliAsync(["reports", "send", "--data-dir", dataDir], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.lastLine, /^0 sent, 0 failed .*, 1 already sent or being sent\.$/);
    assert.equal(sink.received.length, 1);
  });
});

describe("analytics serve with ANALYTICS_SMTP_URL", () => {
  const dataDir = tempDir("analytics-reports-serve-");
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    await seed(dataDir, "served@example.org", "served-report.example", []);
  });

  after(async () => {
    await sink.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends the due report at start; the CLI works beside it, through the server's store", async () => {
    const server = await startServer(["--data-dir", dataDir], { ANALYTICS_SMTP_URL: sink.url });
    try {
      const deadline = Date.now() + 20_000;
      while (sink.received.length === 0) {
        assert.ok(Date.now() < deadline, `no report arrived:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const due = latestDuePeriod("week", new Date());
      assert.equal(sink.received[0]?.subject, `Weekly analytics report: ${due.label}`);
      assert.deepEqual(sink.received[0]?.envelopeTo, ["served@example.org"]);

      // The server holds the embedded event store; the command reaches it through the
      // server's control socket, and the report log keeps it from sending twice.
      const beside = await runCliAsync(["reports", "send", "--data-dir", dataDir], {
        ANALYTICS_SMTP_URL: sink.url,
      });
      assert.equal(beside.status, 0, beside.stderr);
      const sent = Number(/(\d+) sent, 0 failed/.exec(beside.stdout)?.[1]);
      assert.ok(sent === 0 || sent === 1, beside.stdout);
      assert.equal(sink.received.length, 1 + sent, "the period the server sent is not sent again");

      // Without ANALYTICS_PUBLIC_URL, a command beside the server links to where it listens.
      // (The monthly report: the weekly one is sent.)
      const preview = await runCliAsync([
        "reports",
        "send",
        "--dry-run",
        "--period",
        "month",
        "--data-dir",
        dataDir,
      ]);
      assert.equal(preview.status, 0, preview.stderr);
      assert.ok(
        preview.stdout.includes(`Statistics: ${server.baseUrl}/served-report.example`),
        preview.stdout,
      );
      assert.match(preview.stderr, /a guess: .*\(from the address of the server running on /);
    } finally {
      assert.equal(await server.stop(), 0, server.output());
    }
  });
});
