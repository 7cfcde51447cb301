// Daily visitor salts in any Kysely dialect. Insert-if-absent then read back, so servers
// racing to create a day's salt all end up with the one that was stored first.

import type { Kysely } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { SaltRepository } from "../ports.js";
import type { Database } from "./schema.js";

export class RelationalSaltRepository implements SaltRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async getOrCreate(day: string, candidate: string, now: Date): Promise<string> {
    await this.db
      .insertInto("visitor_salts")
      .values({ day, salt: candidate, created_at: formatTimestamp(now) })
      .onConflict((oc) => oc.column("day").doNothing())
      .execute();
    const row = await this.db
      .selectFrom("visitor_salts")
      .select("salt")
      .where("day", "=", day)
      .executeTakeFirstOrThrow();
    return row.salt;
  }

  async deleteBefore(day: string): Promise<number> {
    const result = await this.db.deleteFrom("visitor_salts").where("day", "<", day).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
