// Sends one period's reports: one email per user with websites that have `email = 1`.
// Each report is claimed in the shared report log before it is built and sent, and marked
// sent (or failed, to be retried by the next run) after, so no user gets the same period
// twice, whatever number of servers or CLI runs race for it.

import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { StatsService } from "../stats/stats-service.js";
import type { EventStore, MetadataStore, ReportRecipient, ReportRepository } from "../storage/ports.js";
import type { Mailer, MailMessage } from "./mailer.js";
import { ReportBuilder } from "./report-builder.js";
import { composeReportEmail } from "./report-email.js";
import type { ReportPeriod } from "./report-period.js";

/**
 * A claim older than this is taken for one whose sender died before recording the outcome,
 * and is taken over. It is far longer than a send can take (the SMTP timeouts are a minute),
 * so the only way to get a report twice is a crash between the SMTP server accepting the
 * message and the log recording it; the alternative, never retrying, would lose the report.
 */
export const STALE_CLAIM_MS = 60 * 60_000;

export interface ReportFailure {
  email: string;
  error: string;
}

export interface ReportRunResult {
  period: ReportPeriod;
  /** Addresses sent to by this run. */
  sent: string[];
  failed: ReportFailure[];
  /** Users whose report was already sent, or is being sent by another process. */
  skipped: number;
}

export class ReportSender {
  constructor(
    private readonly reports: ReportRepository,
    private readonly builder: ReportBuilder,
    private readonly from: string,
    private readonly clock: Clock,
  ) {}

  /** The emails a run would send now (to users whose report is not sent yet); claims nothing. */
  async preview(period: ReportPeriod): Promise<MailMessage[]> {
    const messages: MailMessage[] = [];
    for (const recipient of await this.pending(period)) messages.push(await this.compose(recipient, period));
    return messages;
  }

  /** `stopping` is asked before each user, so a server shutting down stops between sends. */
  async send(period: ReportPeriod, mailer: Mailer, stopping = () => false): Promise<ReportRunResult> {
    const result: ReportRunResult = { period, sent: [], failed: [], skipped: 0 };
    const recipients = await this.reports.recipients();
    const pending = await this.pending(period, recipients);
    result.skipped = recipients.length - pending.length;
    for (const recipient of pending) {
      if (stopping()) break;
      const { id, email } = recipient.user;
      const now = this.clock.now();
      const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS);
      const token = await this.reports.claim(id, period.key, now, staleBefore);
      if (token === null) {
        result.skipped++;
        continue;
      }
      try {
        await mailer.send(await this.compose(recipient, period));
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        await this.reports.markFailed(id, period.key, token, message);
        result.failed.push({ email, error: message });
        continue;
      }
      await this.reports.markSent(id, period.key, token, this.clock.now());
      result.sent.push(email);
    }
    return result;
  }

  private async pending(period: ReportPeriod, recipients?: ReportRecipient[]): Promise<ReportRecipient[]> {
    const all = recipients ?? (await this.reports.recipients());
    const sent = await this.reports.sentUsers(period.key);
    return all.filter((recipient) => !sent.has(recipient.user.id));
  }

  private async compose(recipient: ReportRecipient, period: ReportPeriod): Promise<MailMessage> {
    return composeReportEmail(await this.builder.build(recipient, period), this.from);
  }
}

/** The base of links in emails: ANALYTICS_PUBLIC_URL, else where this server listens. */
export function reportBaseUrl(config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

/** The sender over these stores, as the server and the CLI both build it; links start with `baseUrl`. */
export function createReportSender(
  config: Config,
  metadata: MetadataStore,
  events: EventStore,
  clock: Clock,
  baseUrl = reportBaseUrl(config),
): ReportSender {
  const builder = new ReportBuilder(new StatsService(metadata.websites, events, clock), baseUrl);
  return new ReportSender(metadata.reports, builder, config.mailFrom, clock);
}
