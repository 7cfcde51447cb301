// The one place that chooses storage engines from the configuration.

import type { Clock } from "../clock.js";
import { type Config, ConfigError } from "../config.js";
import { StoreBusyError } from "../errors.js";
import { ClickHouseEventStore } from "./clickhouse/clickhouse-event-store.js";
import { DuckDbEventStore } from "./duckdb/duckdb-event-store.js";
import { RemoteEventStore } from "./duckdb/remote-event-store.js";
import { storeSocketPath } from "./duckdb/store-socket.js";
import { configuredMetadataLocation, type MetadataLocation } from "./metadata-location.js";
import type { EventStore, MetadataStore } from "./ports.js";
import { describePostgresServer, openPostgresMetadataStore } from "./postgres/open-postgres.js";
import { ReopeningEventStore } from "./reopening-event-store.js";
import { openSqliteMetadataFile } from "./sqlite/open-sqlite.js";

/** PostgreSQL when ANALYTICS_DATABASE_URL is set, else SQLite in the data directory. */
export function openMetadataStore(config: Config): MetadataStore {
  return openMetadataAt(configuredMetadataLocation(config));
}

/** The metadata store at a location (the configured one, or another to copy into). */
export function openMetadataAt(location: MetadataLocation): MetadataStore {
  if (location.engine === "postgres") return openPostgresMetadataStore(location.url);
  return openSqliteMetadataFile(location.file);
}

/** Where the metadata lives, for messages (never shows a password). */
export function describeMetadataStore(config: Config): string {
  if (!config.databaseUrl) return `in ${config.dataDir}`;
  return `in PostgreSQL at ${describePostgresServer(config.databaseUrl)}`;
}

/**
 * ClickHouse when ANALYTICS_CLICKHOUSE_URL is set (several nodes need their cluster's name,
 * as inserts and reads go through Distributed tables), else the embedded store. That one is
 * a single-writer file: while a server holds it, another process cannot open it (the error
 * says so).
 */
export async function openEventStore(
  config: Config,
  clock?: Clock,
  onUpkeepError?: (error: unknown) => void,
): Promise<EventStore> {
  if (config.clickhouseCluster !== null && config.clickhouseUrl === null) {
    throw new ConfigError("ANALYTICS_CLICKHOUSE_CLUSTER is set but ANALYTICS_CLICKHOUSE_URL is not.");
  }
  if (config.clickhouseUrl !== null) {
    if (config.clickhouseUrl.length > 1 && config.clickhouseCluster === null) {
      throw new ConfigError(
        "ANALYTICS_CLICKHOUSE_URL lists several nodes: set ANALYTICS_CLICKHOUSE_CLUSTER to their cluster's name.",
      );
    }
    return new ClickHouseEventStore(
      { urls: config.clickhouseUrl, cluster: config.clickhouseCluster },
      { clock },
    );
  }
  try {
    return await DuckDbEventStore.open(config.dataDir, { clock, onUpkeepError });
  } catch (error) {
    if (/lock/i.test((error as Error).message)) {
      throw new StoreBusyError(
        `The event store in ${config.dataDir} is in use by a running server (the embedded store has one writer). ` +
          "The server migrates it on start; commands that need it reach it through the server.",
      );
    }
    throw error;
  }
}

export interface ServerEventStoreHooks {
  /** The embedded store failed (attempts 0), or opening it again failed. */
  onFailure?: (error: unknown, attempts: number, nextAttemptMs: number) => void;
  onReopened?: (attempts: number) => void;
  /**
   * Upkeep failed: after a committed insert (the embedded store; the next one retries it),
   * or a round folding closed days (ClickHouse; the next round retries it).
   */
  onUpkeepError?: (error: unknown) => void;
}

/**
 * The event store a server runs on, migrated: the embedded one is opened again from its
 * files whenever DuckDB fails for good (a checkpoint that finds the disk full invalidates
 * the database), so the server recovers by itself once there is room again. Each attempt
 * opens the file (DuckDB replays its log), migrates and checkpoints: the checkpoint needs
 * room for everything logged since the last one, which is what failed.
 */
export async function openServerEventStore(
  config: Config,
  clock: Clock,
  hooks: ServerEventStoreHooks = {},
): Promise<EventStore> {
  const store = await openEventStore(config, clock, hooks.onUpkeepError);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  if (store instanceof ClickHouseEventStore) {
    store.startFolding((error) => hooks.onUpkeepError?.(error)); // a server folds; commands do not
    return store;
  }
  return new ReopeningEventStore(store, {
    open: async () => {
      const fresh = await DuckDbEventStore.open(config.dataDir, {
        clock,
        onUpkeepError: hooks.onUpkeepError,
      });
      try {
        await fresh.migrate();
        await fresh.checkpoint();
      } catch (error) {
        await fresh.close().catch(() => undefined);
        throw error;
      }
      return fresh;
    },
    onFailure: (error, { attempts, nextAttemptMs }) => hooks.onFailure?.(error, attempts, nextAttemptMs),
    onReopened: (attempts) => hooks.onReopened?.(attempts),
  });
}

/**
 * For commands that work beside a running server: the event store as openEventStore opens
 * it, or, when a server holds the embedded store, that store through the server's control
 * socket (every call then runs in the server).
 */
export async function openEventStoreBesideServer(config: Config): Promise<EventStore> {
  try {
    return await openEventStore(config);
  } catch (error) {
    if (!(error instanceof StoreBusyError)) throw error;
    const socketPath = storeSocketPath(config.dataDir);
    if (await RemoteEventStore.answers(socketPath)) return new RemoteEventStore(socketPath);
    throw error;
  }
}
