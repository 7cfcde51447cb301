// Counts of dropped hits in any Kysely dialect: each add is an upsert that adds to the stored
// count, so servers sharing the store each add their own and none overwrites another's.

import type { Kysely } from "kysely";
import type { DropCount, DropRepository } from "../ports.js";
import type { Database } from "./schema.js";

/** Rows per statement: four parameters a row stays far below SQLite's 32,766. */
const ROWS_PER_STATEMENT = 500;

export class RelationalDropRepository implements DropRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async add(counts: readonly DropCount[]): Promise<void> {
    if (counts.length === 0) return;
    // Counts of a website deleted meanwhile are no one's: left out, not refused by its key.
    const ids = [...new Set(counts.map((count) => count.websiteId))];
    const existing = new Set(
      (await this.db.selectFrom("websites").select("id").where("id", "in", ids).execute()).map((row) =>
        Number(row.id),
      ),
    );
    const rows = counts
      .filter((count) => existing.has(count.websiteId))
      .map(({ websiteId, day, reason, count }) => ({ website_id: websiteId, day, reason, count }));
    // All or nothing: the counter keeps every count of a failed write for the next, so a
    // write that stopped half way would add its first statements twice.
    await this.db.transaction().execute(async (trx) => {
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        await trx
          .insertInto("dropped_hits")
          .values(rows.slice(start, start + ROWS_PER_STATEMENT))
          .onConflict((conflict) =>
            conflict.columns(["website_id", "day", "reason"]).doUpdateSet((eb) => ({
              count: eb(eb.ref("dropped_hits.count"), "+", eb.ref("excluded.count")),
            })),
          )
          .execute();
      }
    });
  }

  async read(websiteId: number, from: string, to: string): Promise<DropCount[]> {
    const rows = await this.db
      .selectFrom("dropped_hits")
      .select(["day", "reason", "count"])
      .where("website_id", "=", websiteId)
      .where("day", ">=", from)
      .where("day", "<=", to)
      .orderBy("day")
      .orderBy("reason")
      .execute();
    return rows.map((row) => ({ websiteId, day: row.day, reason: row.reason, count: Number(row.count) }));
  }
}
