// Daily visitor salts in any Kysely dialect. Insert-if-absent then read back, so servers
// racing to create a day's salt all end up with the one that was stored first; each use
// may push the day's expiry later, never earlier.

import type { Kysely } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { SaltRepository, WantedSalt } from "../ports.js";
import type { Database } from "./schema.js";

/** Days per statement: three parameters a day stays far below SQLite's 32,766. */
const DAYS_PER_STATEMENT = 500;

export class RelationalSaltRepository implements SaltRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async getOrCreate(wanted: readonly WantedSalt[], now: Date): Promise<Map<string, string>> {
    const salts = new Map<string, string>();
    for (let start = 0; start < wanted.length; start += DAYS_PER_STATEMENT) {
      const chunk = wanted.slice(start, start + DAYS_PER_STATEMENT);
      await this.db
        .insertInto("visitor_salts")
        .values(
          chunk.map(({ day, candidate, keepUntil }) => ({
            day,
            salt: candidate,
            created_at: formatTimestamp(now),
            expires_at: formatTimestamp(keepUntil),
          })),
        )
        .onConflict((oc) =>
          oc
            .column("day")
            .doUpdateSet((eb) => ({ expires_at: eb.ref("excluded.expires_at") }))
            .where((eb) =>
              eb.or([
                eb("visitor_salts.expires_at", "is", null),
                eb("visitor_salts.expires_at", "<", eb.ref("excluded.expires_at")),
              ]),
            ),
        )
        .execute();
      const rows = await this.db
        .selectFrom("visitor_salts")
        .select(["day", "salt"])
        .where(
          "day",
          "in",
          chunk.map((salt) => salt.day),
        )
        .execute();
      for (const row of rows) salts.set(row.day, row.salt);
    }
    return salts;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("visitor_salts")
      .where("expires_at", "<=", formatTimestamp(now))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
