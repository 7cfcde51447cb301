// The email-report log in any Kysely dialect. A claim is one atomic statement (an insert
// that does nothing on conflict, or a conditional update of a failed or stale row), so
// when several senders race for the same (user, period) exactly one gets a row back.

import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { ReportLogEntry, ReportRecipient, ReportRepository, ReportStatus } from "../ports.js";
import type { Database, ReportLogTable } from "./schema.js";

/** Error texts are kept short: they are for an operator's eyes, not a full trace. */
const MAX_ERROR_LENGTH = 500;

export class RelationalReportRepository implements ReportRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async recipients(): Promise<ReportRecipient[]> {
    const rows = await this.db
      .selectFrom("websites")
      .innerJoin("users", "users.id", "websites.user_id")
      .select([
        "users.id as user_id",
        "users.email as user_email",
        "users.name as user_name",
        "websites.id as website_id",
        "websites.domain as domain",
      ])
      .where("websites.email", "=", 1)
      .where("users.disabled_at", "is", null)
      .orderBy("users.id")
      .orderBy("websites.domain")
      .execute();
    const byUser = new Map<number, ReportRecipient>();
    for (const row of rows) {
      const userId = Number(row.user_id);
      let recipient = byUser.get(userId);
      if (!recipient) {
        recipient = { user: { id: userId, email: row.user_email, name: row.user_name }, websites: [] };
        byUser.set(userId, recipient);
      }
      recipient.websites.push({ id: Number(row.website_id), domain: row.domain });
    }
    return [...byUser.values()];
  }

  async sentUsers(periodKey: string): Promise<Set<number>> {
    const rows = await this.db
      .selectFrom("report_log")
      .select("user_id")
      .where("period_key", "=", periodKey)
      .where("status", "=", "sent" satisfies ReportStatus)
      .execute();
    return new Set(rows.map((row) => Number(row.user_id)));
  }

  async claim(userId: number, periodKey: string, now: Date, staleBefore: Date): Promise<string | null> {
    const token = randomUUID();
    const claimedAt = formatTimestamp(now);
    const inserted = await this.db
      .insertInto("report_log")
      .values({
        user_id: userId,
        period_key: periodKey,
        status: "claimed" satisfies ReportStatus,
        claim_token: token,
        attempts: 1,
        last_error: null,
        claimed_at: claimedAt,
        sent_at: null,
      })
      .onConflict((oc) => oc.columns(["user_id", "period_key"]).doNothing())
      .returning("claim_token")
      .executeTakeFirst();
    if (inserted) return token;
    const retaken = await this.db
      .updateTable("report_log")
      .set((eb) => ({
        status: "claimed" satisfies ReportStatus,
        claim_token: token,
        attempts: eb("attempts", "+", 1),
        claimed_at: claimedAt,
      }))
      .where("user_id", "=", userId)
      .where("period_key", "=", periodKey)
      .where((eb) =>
        eb.or([
          eb("status", "=", "failed" satisfies ReportStatus),
          eb.and([
            eb("status", "=", "claimed" satisfies ReportStatus),
            eb("claimed_at", "<", formatTimestamp(staleBefore)),
          ]),
        ]),
      )
      .returning("claim_token")
      .executeTakeFirst();
    return retaken ? token : null;
  }

  async markSent(userId: number, periodKey: string, token: string, now: Date): Promise<void> {
    const sent = { status: "sent" satisfies ReportStatus, sent_at: formatTimestamp(now), last_error: null };
    await this.whileClaimed(userId, periodKey, token).set(sent).execute();
  }

  async markFailed(userId: number, periodKey: string, token: string, error: string): Promise<void> {
    const failed = { status: "failed" satisfies ReportStatus, last_error: error.slice(0, MAX_ERROR_LENGTH) };
    await this.whileClaimed(userId, periodKey, token).set(failed).execute();
  }

  /** An update of the (user, period) row that changes nothing once another claim took it. */
  private whileClaimed(userId: number, periodKey: string, token: string) {
    return this.db
      .updateTable("report_log")
      .where("user_id", "=", userId)
      .where("period_key", "=", periodKey)
      .where("claim_token", "=", token);
  }

  async find(userId: number, periodKey: string): Promise<ReportLogEntry | null> {
    const row = await this.db
      .selectFrom("report_log")
      .selectAll()
      .where("user_id", "=", userId)
      .where("period_key", "=", periodKey)
      .executeTakeFirst();
    return row ? toEntry(row) : null;
  }
}

function toEntry(row: Selectable<ReportLogTable>): ReportLogEntry {
  return {
    userId: Number(row.user_id),
    periodKey: row.period_key,
    status: row.status as ReportStatus,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    claimedAt: new Date(row.claimed_at),
    sentAt: row.sent_at === null ? null : new Date(row.sent_at),
  };
}
