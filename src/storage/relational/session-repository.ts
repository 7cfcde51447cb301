// Sign-ins to the web app, in any Kysely dialect: a row per sign-in, found by the SHA-256 of
// the token its cookie holds (a copy of this table signs no one in).

import type { Kysely } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { SessionRepository, UserRecord } from "../ports.js";
import type { Database } from "./schema.js";
import { toUser } from "./user-repository.js";

export class RelationalSessionRepository implements SessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(session: {
    tokenHash: string;
    userId: number;
    createdAt: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.db
      .insertInto("user_sessions")
      .values({
        token_hash: session.tokenHash,
        user_id: session.userId,
        created_at: formatTimestamp(session.createdAt),
        expires_at: formatTimestamp(session.expiresAt),
      })
      .execute();
  }

  async findUser(tokenHash: string, now: Date): Promise<UserRecord | null> {
    const row = await this.db
      .selectFrom("user_sessions")
      .innerJoin("users", "users.id", "user_sessions.user_id")
      .selectAll("users")
      .where("user_sessions.token_hash", "=", tokenHash)
      .where("user_sessions.expires_at", ">", formatTimestamp(now))
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom("user_sessions").where("token_hash", "=", tokenHash).execute();
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("user_sessions")
      .where("expires_at", "<=", formatTimestamp(now))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
