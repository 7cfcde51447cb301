// A user's further API keys, in any Kysely dialect (the primary key lives in users): only a
// key's id and SHA-256 are kept (api-keys.ts), with its name, access and last use.

import type { Kysely, Selectable } from "kysely";
import { formatTimestamp } from "../../clock.js";
import type { ApiKeyRecord, ApiKeyRepository, StoredCredential } from "../ports.js";
import type { ApiKeysTable, Database } from "./schema.js";
import { toUser } from "./user-repository.js";

export class RelationalApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(key: {
    keyId: string;
    userId: number;
    name: string;
    keyHash: string;
    readOnly: boolean;
    now: Date;
  }): Promise<ApiKeyRecord> {
    const row = await this.db
      .insertInto("api_keys")
      .values({
        key_id: key.keyId,
        user_id: key.userId,
        name: key.name,
        key_hash: key.keyHash,
        read_only: key.readOnly ? 1 : 0,
        created_at: formatTimestamp(key.now),
        last_used_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toKey(row);
  }

  async list(userId: number): Promise<ApiKeyRecord[]> {
    const primary = await this.db
      .selectFrom("users")
      .select(["api_key_id", "updated_at", "api_key_last_used_at"])
      .where("id", "=", userId)
      .executeTakeFirst();
    if (!primary) return [];
    const rows = await this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("key_id")
      .execute();
    return [
      {
        keyId: primary.api_key_id,
        name: null,
        readOnly: false,
        // The users row says when it last changed, which a rotation does; close enough to "issued".
        createdAt: new Date(primary.updated_at),
        lastUsedAt: primary.api_key_last_used_at === null ? null : new Date(primary.api_key_last_used_at),
      },
      ...rows.map(toKey),
    ];
  }

  async findCredential(keyId: string): Promise<StoredCredential | null> {
    const row = await this.db
      .selectFrom("api_keys")
      .innerJoin("users", "users.id", "api_keys.user_id")
      .selectAll("users")
      .select(["api_keys.key_hash as further_key_hash", "api_keys.read_only as further_read_only"])
      .where("api_keys.key_id", "=", keyId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      user: toUser(row),
      apiKeyHash: row.further_key_hash,
      readOnly: Number(row.further_read_only) === 1,
    };
  }

  async delete(userId: number, keyId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("api_keys")
      .where("user_id", "=", userId)
      .where("key_id", "=", keyId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async markUsed(keyId: string, now: Date): Promise<void> {
    const at = formatTimestamp(now);
    await this.db.updateTable("api_keys").set({ last_used_at: at }).where("key_id", "=", keyId).execute();
    await this.db
      .updateTable("users")
      .set({ api_key_last_used_at: at })
      .where("api_key_id", "=", keyId)
      .execute();
  }
}

function toKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    keyId: row.key_id,
    name: row.name,
    readOnly: Number(row.read_only) === 1,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}
