// Websites, in any Kysely dialect. Every read and write of a user's website is scoped by
// user_id, so another user's website is indistinguishable from a missing one.

import { type ExpressionOrFactory, type Kysely, type Selectable, type SqlBool, sql } from "kysely";
import { formatTimestamp } from "../../clock.js";
import { unicodeDomain } from "../../unicode-domain.js";
import {
  DuplicateError,
  type Flag,
  type NewWebsite,
  type Privacy,
  type WebsiteListQuery,
  type WebsitePatch,
  type WebsiteRecord,
  type WebsiteRepository,
} from "../ports.js";
import type { Database, WebsitesTable } from "./schema.js";
import type { UniqueViolationDetector } from "./unique-violation.js";

export class RelationalWebsiteRepository implements WebsiteRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly uniqueViolation: UniqueViolationDetector,
  ) {}

  async create(website: NewWebsite): Promise<WebsiteRecord> {
    const now = formatTimestamp(website.now);
    try {
      const row = await this.db
        .insertInto("websites")
        .values({
          user_id: website.userId,
          domain: website.domain,
          domain_unicode: unicodeDomain(website.domain),
          privacy: website.privacy,
          password_hash: website.passwordHash,
          email: website.email,
          exclude_bots: website.excludeBots,
          exclude_datacenters: website.excludeDatacenters,
          exclude_params: website.excludeParams,
          exclude_ips: website.excludeIps,
          timezone: website.timezone,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toWebsite(row);
    } catch (error) {
      if (this.uniqueViolation(error) === "domain") throw new DuplicateError("domain");
      throw error;
    }
  }

  async zones(): Promise<{ id: number; timezone: string }[]> {
    const rows = await this.db.selectFrom("websites").select(["id", "timezone"]).orderBy("id").execute();
    return rows.map((row) => ({ id: Number(row.id), timezone: row.timezone }));
  }

  find(userId: number, id: number): Promise<WebsiteRecord | null> {
    return this.findWhere((eb) => eb.and([eb("id", "=", id), eb("user_id", "=", userId)]));
  }

  findByDomain(domain: string): Promise<WebsiteRecord | null> {
    return this.findWhere((eb) => eb("domain", "=", domain));
  }

  findById(id: number): Promise<WebsiteRecord | null> {
    return this.findWhere((eb) => eb("id", "=", id));
  }

  async update(userId: number, id: number, patch: WebsitePatch, now: Date): Promise<WebsiteRecord | null> {
    const changes = {
      privacy: patch.privacy,
      password_hash: patch.passwordHash,
      email: patch.email,
      exclude_bots: patch.excludeBots,
      exclude_datacenters: patch.excludeDatacenters,
      exclude_params: patch.excludeParams,
      exclude_ips: patch.excludeIps,
      timezone: patch.timezone,
    };
    const epoch = patch.endPasswordCookies ? { password_epoch: sql<number>`password_epoch + 1` } : {};
    const row = await this.db
      .updateTable("websites")
      .set({ ...withoutUndefined(changes), ...epoch, updated_at: formatTimestamp(now) })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .returningAll()
      .executeTakeFirst();
    return row ? toWebsite(row) : null;
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom("websites")
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async list(query: WebsiteListQuery): Promise<{ items: WebsiteRecord[]; total: number }> {
    let base = this.db.selectFrom("websites").where("user_id", "=", query.userId);
    if (query.search) {
      // Both forms of a domain are stored lowercase, so a lowercase needle makes the match
      // case-insensitive on every engine (SQLite's LIKE folds ASCII only); escaping makes %
      // and _ literal.
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      base = base.where(
        sql<boolean>`(domain LIKE ${pattern} ESCAPE '\\' OR domain_unicode LIKE ${pattern} ESCAPE '\\')`,
      );
    }
    const counted = await base.select((eb) => eb.fn.countAll().as("total")).executeTakeFirstOrThrow();
    // Byte-wise columns, so every engine orders alike (by code point); ties, if two domains
    // ever read alike, in creation order, so pages neither overlap nor skip.
    const rows = await base
      .selectAll()
      .orderBy(query.sortBy, query.sort)
      .orderBy("id", query.sort)
      .limit(query.limit)
      .offset(query.offset)
      .execute();
    return { items: rows.map(toWebsite), total: Number(counted.total) };
  }

  private async findWhere(
    where: ExpressionOrFactory<Database, "websites", SqlBool>,
  ): Promise<WebsiteRecord | null> {
    const row = await this.db.selectFrom("websites").selectAll().where(where).executeTakeFirst();
    return row ? toWebsite(row) : null;
  }
}

function withoutUndefined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function toWebsite(row: Selectable<WebsitesTable>): WebsiteRecord {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    domain: row.domain,
    privacy: Number(row.privacy) as Privacy,
    passwordHash: row.password_hash,
    passwordEpoch: Number(row.password_epoch),
    email: Number(row.email) as Flag,
    excludeBots: Number(row.exclude_bots) as Flag,
    excludeDatacenters: Number(row.exclude_datacenters) as Flag,
    excludeParams: row.exclude_params,
    excludeIps: row.exclude_ips,
    timezone: row.timezone,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
