// `analytics reports send [--period week|month] [--dry-run] [--host H] [--port P]`: sends the
// reports of the last full period now (to users who have not had it), or with --dry-run
// prints them and sends and records nothing. Claims in the report log keep it from doubling
// a server's sends. Links start with ANALYTICS_PUBLIC_URL, else with the address of the
// server running on the data directory, else with the host and port settings.

import { systemClock } from "../clock.js";
import { type Config, ConfigError } from "../config.js";
import { lastFullPeriod } from "../reports/report-period.js";
import { createReportSender, reportBaseUrl } from "../reports/report-sender.js";
import { SmtpMailer } from "../reports/smtp-mailer.js";
import { openEventStoreBesideServer, openMetadataStore } from "../storage/open-storage.js";
import type { MetadataStore } from "../storage/ports.js";
import { configFrom, parseCommand, UsageError } from "./command-options.js";
import { readServerAddress } from "./server-address.js";

const PERIODS = ["week", "month"] as const;

export async function reportsSendCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, {
    period: { type: "string" },
    "dry-run": { type: "boolean" },
    host: { type: "string" },
    port: { type: "string" },
  });
  const { period: periodFlag, "dry-run": dryRun, ...storage } = values;
  if (periodFlag !== undefined && !PERIODS.includes(periodFlag as (typeof PERIODS)[number])) {
    throw new UsageError("--period must be one of: week, month.");
  }
  const config = configFrom(storage);
  if (!dryRun && !config.smtpUrl) {
    throw new ConfigError("ANALYTICS_SMTP_URL is not set: set it to send reports, or use --dry-run.");
  }
  const kind = (periodFlag as (typeof PERIODS)[number] | undefined) ?? config.reportPeriod;
  const period = lastFullPeriod(kind, systemClock.now());

  // The event store first, as it is: a mistyped --data-dir is refused before any store is
  // made in it (reports of a store without events would be empty anyway).
  const events = await openEventStoreBesideServer(config, { existing: true });
  let metadata: MetadataStore | null = null;
  try {
    metadata = openMetadataStore(config);
    await metadata.migrate();
    await events.migrate();
    const links = linkBase(config, storage.host !== undefined || storage.port !== undefined);
    if (links.warning) console.error(links.warning);
    const sender = createReportSender(config, metadata, events, systemClock, links.url);
    if (dryRun) {
      const messages = await sender.preview(period);
      for (const message of messages) {
        console.log(
          `From: ${message.from}\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}`,
        );
      }
      console.log(
        `Dry run: ${messages.length} report(s) of ${period.label} would be sent; nothing was sent.`,
      );
      return 0;
    }
    const mailer = new SmtpMailer(config.smtpUrl as string);
    try {
      const result = await sender.send(period, mailer);
      for (const email of result.sent) console.log(`Sent the report of ${period.label} to ${email}.`);
      for (const failure of result.failed) {
        console.error(`Could not send the report of ${period.label} to ${failure.email}: ${failure.error}`);
      }
      console.log(
        `${result.sent.length} sent, ${result.failed.length} failed (retried by the next run), ` +
          `${result.skipped} already sent or being sent.`,
      );
      return result.failed.length > 0 ? 1 : 0;
    } finally {
      mailer.close();
    }
  } finally {
    await events.close();
    await metadata?.close();
  }
}

/**
 * Where the emails' links point, and a warning when that is not ANALYTICS_PUBLIC_URL (the
 * one address known to reach users): a running server's own address comes next, unless
 * --host or --port say otherwise, then the host and port settings.
 */
function linkBase(config: Config, addressGiven: boolean): { url: string; warning: string | null } {
  if (config.publicUrl) return { url: config.publicUrl, warning: null };
  const running = addressGiven ? null : readServerAddress(config.dataDir);
  const url = running ?? reportBaseUrl(config);
  const from = running
    ? `the address of the server running on ${config.dataDir}`
    : "ANALYTICS_HOST and ANALYTICS_PORT (or --host and --port)";
  return {
    url,
    warning: `Warning: ANALYTICS_PUBLIC_URL is not set, so the links are a guess: ${url} (from ${from}). Set it to the address users reach this server at.`,
  };
}
