// The one place that chooses storage engines from the configuration.

import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { StoreBusyError } from "../errors.js";
import { DuckDbEventStore } from "./duckdb/duckdb-event-store.js";
import type { EventStore, MetadataStore } from "./ports.js";
import { openSqliteMetadataStore } from "./sqlite/open-sqlite.js";

export function openMetadataStore(config: Config): MetadataStore {
  return openSqliteMetadataStore(config.dataDir);
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
