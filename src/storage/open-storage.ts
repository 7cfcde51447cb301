// The one place that chooses storage engines from the configuration.

import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { StoreBusyError } from "../errors.js";
import { DuckDbEventStore } from "./duckdb/duckdb-event-store.js";
import type { EventStore, MetadataStore } from "./ports.js";
import { describePostgresServer, openPostgresMetadataStore } from "./postgres/open-postgres.js";
import { openSqliteMetadataStore } from "./sqlite/open-sqlite.js";

/** PostgreSQL when ANALYTICS_DATABASE_URL is set, else SQLite in the data directory. */
export function openMetadataStore(config: Config): MetadataStore {
  if (config.databaseUrl) return openPostgresMetadataStore(config.databaseUrl);
  return openSqliteMetadataStore(config.dataDir);
}

/** Where the metadata lives, for messages (never shows a password). */
export function describeMetadataStore(config: Config): string {
  if (!config.databaseUrl) return `in ${config.dataDir}`;
  return `in PostgreSQL at ${describePostgresServer(config.databaseUrl)}`;
}

/**
 * The embedded event store is a single-writer file: while a server holds it, another
 * process cannot open it (the error says so).
 */
export async function openEventStore(config: Config, clock?: Clock): Promise<EventStore> {
  try {
    return await DuckDbEventStore.open(config.dataDir, clock ? { clock } : {});
  } catch (error) {
    if (/lock/i.test((error as Error).message)) {
      throw new StoreBusyError(
        `The event store in ${config.dataDir} is in use by a running server (the embedded store has one writer). ` +
          "The server migrates it on start; stop the server to work on it from the command line.",
      );
    }
    throw error;
  }
}
