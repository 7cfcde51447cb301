// Versioned schema migrations of the SQLite metadata store, applied in name order by
// Kysely's Migrator. Never edit a released migration: add the next one.

import { type Kysely, type Migration, sql } from "kysely";
import { backfillDomainUnicode } from "./domain-unicode-backfill.js";

export const sqliteMigrations: Record<string, Migration> = {
  "0001-users-and-websites": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("users")
        .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
        .addColumn("email", "text", (c) => c.notNull().unique())
        .addColumn("name", "text")
        .addColumn("is_admin", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("api_key_id", "text", (c) => c.notNull().unique())
        .addColumn("api_key_hash", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("websites")
        .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("domain", "text", (c) => c.notNull().unique())
        .addColumn("privacy", "integer", (c) => c.notNull())
        .addColumn("password_hash", "text")
        .addColumn("email", "integer", (c) => c.notNull())
        .addColumn("exclude_bots", "integer", (c) => c.notNull())
        .addColumn("exclude_params", "text")
        .addColumn("exclude_ips", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await sql`CREATE INDEX websites_user_id_id ON websites (user_id, id)`.execute(db);
      await sql`CREATE INDEX websites_user_id_domain ON websites (user_id, domain)`.execute(db);
    },
  },
  "0002-visitor-salts": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("visitor_salts")
        .addColumn("day", "text", (c) => c.primaryKey())
        .addColumn("salt", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0003-pages-server-secrets": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("server_secrets")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  // One row per user and report period. The primary key is what makes a claim exclusive.
  "0004-report-log": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("report_log")
        .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("period_key", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("claim_token", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull())
        .addColumn("last_error", "text")
        .addColumn("claimed_at", "text", (c) => c.notNull())
        .addColumn("sent_at", "text")
        .addPrimaryKeyConstraint("report_log_pk", ["user_id", "period_key"])
        .execute();
    },
  },
  // A salt is kept until a time of its own: 48 hours from its day's start, or from the last
  // import that used it (so an import sent in many requests counts a visitor once a day).
  "0005-salt-expiry": {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("visitor_salts").addColumn("expires_at", "text").execute();
      await sql`UPDATE visitor_salts SET expires_at = strftime('%Y-%m-%dT%H:%M:%S.000000Z', day, '+2 days')`.execute(
        db,
      );
      await sql`CREATE INDEX visitor_salts_expires_at ON visitor_salts (expires_at)`.execute(db);
    },
  },
  // The Unicode form of each domain, so the website list can search an internationalised
  // name as people write it (münchen) in SQL, paging included.
  "0006-websites-domain-unicode": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("websites")
        .addColumn("domain_unicode", "text", (c) => c.notNull().defaultTo(""))
        .execute();
      await backfillDomainUnicode(db);
    },
  },
  // Counts the times a website left privacy 2, so a password cookie issued before ends even
  // if the website returns to privacy 2 with the same password (and so the same hash).
  "0007-websites-password-epoch": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("websites")
        .addColumn("password_epoch", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
};
