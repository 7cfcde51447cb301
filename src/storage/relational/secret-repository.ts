// Named server secrets in any Kysely dialect. Insert-if-absent then read back (as the
// salts do), so servers starting together all end up with the one stored first.

import type { Kysely } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { SecretRepository } from "../ports.js";
import type { Database } from "./schema.js";

export class RelationalSecretRepository implements SecretRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async getOrCreate(name: string, candidate: string, now: Date): Promise<string> {
    await this.db
      .insertInto("server_secrets")
      .values({ name, value: candidate, created_at: formatTimestamp(now) })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
    const row = await this.db
      .selectFrom("server_secrets")
      .select("value")
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
