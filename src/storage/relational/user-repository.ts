// Users, their API key credential and their web app password, in any Kysely dialect.

import type { Kysely, Selectable } from "kysely";
import { formatTimestamp } from "../../clock.js";
import { DuplicateError, type NewUser, type UserRecord, type UserRepository } from "../ports.js";
import type { Database, UsersTable } from "./schema.js";
import type { UniqueViolationDetector } from "./unique-violation.js";

export class RelationalUserRepository implements UserRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly uniqueViolation: UniqueViolationDetector,
  ) {}

  async create(user: NewUser): Promise<UserRecord> {
    const now = formatTimestamp(user.now);
    try {
      const row = await this.db
        .insertInto("users")
        .values({
          email: user.email,
          name: user.name,
          is_admin: user.isAdmin ? 1 : 0,
          api_key_id: user.apiKeyId,
          api_key_hash: user.apiKeyHash,
          password_hash: user.passwordHash,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toUser(row);
    } catch (error) {
      if (this.uniqueViolation(error) === "email") throw new DuplicateError("email");
      throw error;
    }
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findCredential(apiKeyId: string) {
    const row = await this.db
      .selectFrom("users")
      .selectAll()
      .where("api_key_id", "=", apiKeyId)
      .executeTakeFirst();
    return row ? { user: toUser(row), apiKeyHash: row.api_key_hash, readOnly: false } : null;
  }

  async replaceKey(userId: number, apiKeyId: string, apiKeyHash: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable("users")
      .set({ api_key_id: apiKeyId, api_key_hash: apiKeyHash, updated_at: formatTimestamp(now) })
      .where("id", "=", userId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async findById(userId: number): Promise<UserRecord | null> {
    const row = await this.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async any(): Promise<boolean> {
    const row = await this.db.selectFrom("users").select("id").limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async findPassword(email: string) {
    const row = await this.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  }

  replacePassword(userId: number, passwordHash: string | null, now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable("users")
        .set({ password_hash: passwordHash, updated_at: formatTimestamp(now) })
        .where("id", "=", userId)
        .executeTakeFirst();
      await trx.deleteFrom("user_sessions").where("user_id", "=", userId).execute();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  setDisabled(userId: number, disabledAt: Date | null, now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable("users")
        .set({
          disabled_at: disabledAt === null ? null : formatTimestamp(disabledAt),
          updated_at: formatTimestamp(now),
        })
        .where("id", "=", userId)
        .executeTakeFirst();
      if (disabledAt !== null) await trx.deleteFrom("user_sessions").where("user_id", "=", userId).execute();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  async list(limit: number, offset: number): Promise<{ items: UserRecord[]; total: number }> {
    const rows = await this.db
      .selectFrom("users")
      .selectAll()
      .orderBy("id", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
    const counted = await this.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll().as("total"))
      .executeTakeFirstOrThrow();
    return { items: rows.map(toUser), total: Number(counted.total) };
  }
}

export function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: Number(row.id),
    email: row.email,
    name: row.name,
    isAdmin: Number(row.is_admin) === 1,
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : new Date(row.disabled_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
