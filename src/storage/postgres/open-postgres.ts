// Opens the PostgreSQL metadata store: a node-postgres pool behind Kysely's PostgresDialect,
// serving the same repositories as SQLite. Any number of server processes can share it.
// node-postgres is loaded when a store is opened, not with this module: every command
// imports it, and most never use PostgreSQL (see open-storage.ts).

import { createRequire } from "node:module";
import { type DatabaseIntrospector, Kysely, PostgresDialect, sql } from "kysely";
import type pgModule from "pg";
import { RelationalMetadataStore } from "../relational/metadata-store.js";
import { postgresMigrations } from "../relational/migrations/metadata-migrations.js";
import type { Database } from "../relational/schema.js";
import { CurrentSchemaIntrospector } from "./current-schema-introspector.js";

/** Connections one process keeps at most; requests beyond it wait for a free one. */
const POOL_SIZE = 10;
/** A server that does not answer within this is reported down (health check, start-up). */
const CONNECT_TIMEOUT_MS = 5_000;

export function openPostgresMetadataStore(url: string): RelationalMetadataStore {
  const pg = createRequire(import.meta.url)("pg") as typeof pgModule;
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: "analytics",
    // bigint ids and counts as numbers (ids stay below 2^31), so rows read as SQLite's do.
    types: {
      getTypeParser: (oid, format) =>
        oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format),
    },
  });
  // A connection the server drops (a restart) emits "error": on the pool while idle, on the
  // client while checked out. Without a listener either would end the process; the query in
  // flight fails on its own, the next opens a new connection, and /healthz tells meanwhile.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return new RelationalMetadataStore(db, {
    migrations: postgresMigrations,
    uniqueViolation: postgresUniqueColumn,
    unreachable: (error) => postgresUnreachable(error, url),
    currentSchema: async (database) => {
      const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(
        database,
      );
      const schema = rows[0]?.schema;
      if (!schema)
        throw new Error("The PostgreSQL search_path names no existing schema to create the tables in.");
      return schema;
    },
    // An identity column's sequence knows nothing of ids written explicitly (a copy keeps
    // them), so the next generated id would collide with a copied one.
    continueIdentity: async (db, table, column) => {
      const highest = sql`coalesce(max(${sql.ref(column)}), 0)`;
      await sql`SELECT setval(pg_get_serial_sequence(${table}, ${column}), ${highest} + 1, false)
        FROM ${sql.table(table)}`.execute(db);
    },
  });
}

/** Kysely's PostgreSQL dialect, introspecting only the current schema (see the introspector). */
class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

/** PostgreSQL reports a unique violation as SQLSTATE 23505 with `Key (domain)=(...) already exists.` */
function postgresUniqueColumn(error: unknown): string | null {
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  if (code !== "23505" || typeof detail !== "string") return null;
  return /^Key \((\w+)\)=/.exec(detail)?.[1] ?? null;
}

const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "unknown host",
  ETIMEDOUT: "timed out",
  "28P01": "password authentication failed",
  "28000": "access refused",
  "3D000": "no such database",
};

/** Says why the server could not be used, naming it without its password; null for other errors. */
function postgresUnreachable(error: unknown, url: string): string | null {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const known = typeof code === "string" ? UNREACHABLE_CODES[code] : undefined;
  const timedOut = typeof message === "string" && /timeout/i.test(message) && /connect/i.test(message);
  if (known === undefined && !timedOut) return null;
  return `Cannot use the PostgreSQL metadata store at ${describePostgresServer(url)}: ${known ?? "connection timed out"}.`;
}

/** `host:port/database` of a connection URL, without user or password. */
export function describePostgresServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "ANALYTICS_DATABASE_URL";
  }
}
