// Opens the PostgreSQL metadata store: a node-postgres pool behind Kysely's PostgresDialect,
// serving the same repositories as SQLite. Any number of server processes can share it.
// node-postgres is loaded when a store is opened, not with this module: every command
// imports it, and most never use PostgreSQL (see open-storage.ts). A server that cannot be
// used (stopped, restarting, unreachable) fails each statement with StoreUnavailableError
// (postgres-failures.ts), answered 503.

import { createRequire } from "node:module";
import { type DatabaseIntrospector, Kysely, PostgresDialect, sql } from "kysely";
import type pgModule from "pg";
import { StoreUnavailableError } from "../../errors.js";
import { RelationalMetadataStore } from "../relational/metadata-store.js";
import { postgresMigrations } from "../relational/migrations/metadata-migrations.js";
import type { Database } from "../relational/schema.js";
import { CurrentSchemaIntrospector } from "./current-schema-introspector.js";
import { postgresUnavailable, translatedPool } from "./postgres-failures.js";

/** Connections one process keeps at most; requests beyond it wait for a free one. */
const POOL_SIZE = 10;
/** A server that does not answer within this is reported down (health check, start-up). */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A statement given no answer within this fails as the server being unavailable (503), and
 * its connection is closed: a server that stops answering on an open connection (a cut
 * route, a stopped process) held every request, /healthz too, for as long as it lasted.
 * Every statement of this store is a short one (the longest, a migration step or a copy's
 * batch of 500 rows, takes milliseconds); a process that starts while another migrates
 * waits on its lock as long as that migration takes, well under a second so far.
 */
const STATEMENT_TIMEOUT_MS = 5_000;

export function openPostgresMetadataStore(url: string): RelationalMetadataStore {
  const pg = createRequire(import.meta.url)("pg") as typeof pgModule;
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
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
  // Kysely gets the pool through translatedPool: a server that cannot be used answers 503.
  const db = new Kysely<Database>({
    dialect: new CurrentSchemaPostgresDialect({ pool: translatedPool(pool, url) }),
  });
  return new RelationalMetadataStore(db, {
    migrations: postgresMigrations,
    uniqueViolation: postgresUniqueColumn,
    // A statement's failure comes translated (translatedPool): its message says it.
    unreachable: (error) =>
      error instanceof StoreUnavailableError ? error.message : postgresUnavailable(error, url),
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
