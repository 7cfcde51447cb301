// Versioned schema migrations of the metadata store, one list for SQLite and PostgreSQL,
// applied in name order by Kysely's Migrator; only the column types differ (ColumnTypes), so
// both engines hold the same data. Never edit a released migration: add the next one.

import {
  type ColumnDataType,
  type ColumnDefinitionBuilder,
  type Expression,
  type Kysely,
  type Migration,
  type RawBuilder,
  sql,
} from "kysely";
import { backfillDomainUnicode } from "./domain-unicode-backfill.js";

/** A column's type: a name Kysely knows, or SQL (a collation). */
type DataType = ColumnDataType | Expression<unknown>;

/** What differs between the engines: the types of the columns, and one date computation. */
interface ColumnTypes {
  /** Ids and the columns referring to them. */
  id: DataType;
  /** How an id column generates its values. */
  generated: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /** Flags and small codes (is_admin, privacy, email, exclude_bots). */
  small: DataType;
  timestamp: DataType;
  /** Domains and emails, which compare and sort byte-wise on both engines. */
  bytewise: DataType;
  /** Migration 0005: each salt kept until 48 hours after its day's start. */
  saltExpiry: RawBuilder<unknown>;
}

const SQLITE_TYPES: ColumnTypes = {
  id: "integer",
  generated: (column) => column.autoIncrement(),
  small: "integer",
  timestamp: "text",
  bytewise: "text",
  saltExpiry: sql`UPDATE visitor_salts SET expires_at = strftime('%Y-%m-%dT%H:%M:%S.000000Z', day, '+2 days')`,
};

// Types differ from SQLite where PostgreSQL has a better one: timestamps are timestamptz
// (repositories read them back as Date either way), ids are identity columns. Domains and
// emails compare and sort byte-wise (COLLATE "C"), as in SQLite, whatever the database's
// locale, so `sort_by=domain` gives the same order on both engines.
const POSTGRES_TYPES: ColumnTypes = {
  id: "bigint",
  generated: (column) => column.generatedByDefaultAsIdentity(),
  small: "smallint",
  timestamp: "timestamptz",
  bytewise: sql`text COLLATE "C"`,
  saltExpiry: sql`UPDATE visitor_salts SET expires_at = (day::date + 2)::timestamp AT TIME ZONE 'UTC'`,
};

function migrations(types: ColumnTypes): Record<string, Migration> {
  const { id, small, timestamp, bytewise } = types;
  return {
    "0001-users-and-websites": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("users")
          .addColumn("id", id, (c) => types.generated(c.primaryKey()))
          .addColumn("email", bytewise, (c) => c.notNull().unique())
          .addColumn("name", "text")
          .addColumn("is_admin", small, (c) => c.notNull().defaultTo(0))
          .addColumn("api_key_id", "text", (c) => c.notNull().unique())
          .addColumn("api_key_hash", "text", (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("updated_at", timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("websites")
          .addColumn("id", id, (c) => types.generated(c.primaryKey()))
          .addColumn("user_id", id, (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("domain", bytewise, (c) => c.notNull().unique())
          .addColumn("privacy", small, (c) => c.notNull())
          .addColumn("password_hash", "text")
          .addColumn("email", small, (c) => c.notNull())
          .addColumn("exclude_bots", small, (c) => c.notNull())
          .addColumn("exclude_params", "text")
          .addColumn("exclude_ips", "text")
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("updated_at", timestamp, (c) => c.notNull())
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
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .execute();
      },
    },
    "0003-pages-server-secrets": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("server_secrets")
          .addColumn("name", "text", (c) => c.primaryKey())
          .addColumn("value", "text", (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .execute();
      },
    },
    // One row per user and report period. The primary key is what makes a claim exclusive.
    "0004-report-log": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("report_log")
          .addColumn("user_id", id, (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("period_key", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("claim_token", "text", (c) => c.notNull())
          .addColumn("attempts", "integer", (c) => c.notNull())
          .addColumn("last_error", "text")
          .addColumn("claimed_at", timestamp, (c) => c.notNull())
          .addColumn("sent_at", timestamp)
          .addPrimaryKeyConstraint("report_log_pk", ["user_id", "period_key"])
          .execute();
      },
    },
    // A salt is kept until a time of its own: 48 hours from its day's start, or from the last
    // import that used it (so an import sent in many requests counts a visitor once a day).
    "0005-salt-expiry": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("visitor_salts").addColumn("expires_at", timestamp).execute();
        await types.saltExpiry.execute(db);
        await sql`CREATE INDEX visitor_salts_expires_at ON visitor_salts (expires_at)`.execute(db);
      },
    },
    // The Unicode form of each domain, so the website list can search an internationalised
    // name as people write it (münchen) in SQL, paging included. Byte-wise like domain.
    "0006-websites-domain-unicode": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable("websites")
          .addColumn("domain_unicode", bytewise, (c) => c.notNull().defaultTo(""))
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
    // The time zone whose days and hours a website's statistics count in (IANA name).
    "0008-websites-timezone": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable("websites")
          .addColumn("timezone", "text", (c) => c.notNull().defaultTo("UTC"))
          .execute();
      },
    },
    // Owners sign in to the web app with their email and a password (a slow salted hash;
    // null: the user has none, and signs in with an API key alone). A sign-in is a row of
    // user_sessions, found by the hash of the token its cookie holds, so signing out or
    // changing the password ends it on every copy of the cookie.
    "0009-user-passwords-and-sessions": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("users").addColumn("password_hash", "text").execute();
        await db.schema
          .createTable("user_sessions")
          .addColumn("token_hash", "text", (c) => c.primaryKey())
          .addColumn("user_id", id, (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("expires_at", timestamp, (c) => c.notNull())
          .execute();
        await sql`CREATE INDEX user_sessions_user_id ON user_sessions (user_id)`.execute(db);
      },
    },
    // A user's further API keys, each named, full or read-only, revoked one at a time (the
    // key in users stays the user's primary one, which `keys rotate` replaces), and when
    // each key was last used.
    "0010-api-keys": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("api_keys")
          .addColumn("key_id", "text", (c) => c.primaryKey())
          .addColumn("user_id", id, (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("key_hash", "text", (c) => c.notNull())
          .addColumn("read_only", small, (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("last_used_at", timestamp)
          .execute();
        await sql`CREATE INDEX api_keys_user_id ON api_keys (user_id)`.execute(db);
        await db.schema.alterTable("users").addColumn("api_key_last_used_at", timestamp).execute();
      },
    },
    // An administrator may disable a user: their keys and sign-ins stop, their websites and
    // statistics stay (and keep collecting), and enabling them again restores their keys.
    "0011-users-disabled": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("users").addColumn("disabled_at", timestamp).execute();
      },
    },
    // Hits the collection endpoint dropped, counted per website, local day and reason
    // (ingest/drop-counter.ts adds to them), so an owner sees what was kept out afterwards.
    // Deleted with the website. `count` is as wide as an id (bigint on PostgreSQL).
    "0012-dropped-hits": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("dropped_hits")
          .addColumn("website_id", id, (c) => c.notNull().references("websites.id").onDelete("cascade"))
          .addColumn("day", bytewise, (c) => c.notNull())
          .addColumn("reason", "text", (c) => c.notNull())
          .addColumn("count", id, (c) => c.notNull())
          .addPrimaryKeyConstraint("dropped_hits_key", ["website_id", "day", "reason"])
          .execute();
      },
    },
    // 1: collection drops hits from data-centre networks (enrich/datacenter-networks.ts).
    // Websites from before the setting keep 0, so an upgrade changes no one's counting;
    // new websites get 1 (websites/website-rules.ts).
    "0013-websites-exclude-datacenters": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable("websites")
          .addColumn("exclude_datacenters", small, (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
  };
}

export const sqliteMigrations = migrations(SQLITE_TYPES);
export const postgresMigrations = migrations(POSTGRES_TYPES);
