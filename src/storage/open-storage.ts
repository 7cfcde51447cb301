// The one place that chooses storage engines from the configuration. Event engines are
// listed once, below: each folder gives one EventEngine (event-engine.ts), and everything
// here works through that shape alone.
//
// Each engine loads its driver (DuckDB, the ClickHouse client, node-postgres) when a store
// is opened, not when imported: a command loads only the drivers of the stores it uses
// (`analytics users create` on embedded storage took a median of 330 ms against 650 ms
// when every driver was loaded, `migrate` 545 against 660).

import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { StoreBusyError } from "../errors.js";
import { clickHouseEngine } from "./clickhouse/clickhouse-engine.js";
import { duckDbEngine } from "./duckdb/duckdb-engine.js";
import type { Closable, EngineOptions, EventEngine } from "./event-engine.js";
import { configuredMetadataLocation, type MetadataLocation } from "./metadata-location.js";
import type { EventStore, MetadataStore } from "./ports.js";
import { openPostgresMetadataStore } from "./postgres/open-postgres.js";
import { describePostgresServer } from "./postgres/postgres-failures.js";
import { ReopeningEventStore, type ReopeningHooks } from "./reopening-event-store.js";
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
 * The event engines, asked in this order whether the configuration chooses them: ClickHouse
 * when ANALYTICS_CLICKHOUSE_URL is set, else the embedded store (the default, last).
 */
const EVENT_ENGINES: readonly EventEngine[] = [clickHouseEngine, duckDbEngine];

/** Every file an event engine may keep in the data directory. */
export const EVENT_STORE_FILES: readonly string[] = EVENT_ENGINES.flatMap((engine) => engine.dataFiles);

function eventEngine(config: Config): EventEngine {
  const engine = EVENT_ENGINES.find((candidate) => candidate.chosenBy(config));
  if (!engine) throw new Error("no event engine chosen"); // the last one always is
  return engine;
}

/** Where the events live, for messages (never shows a password). */
export function describeEventStore(config: Config): string {
  return eventEngine(config).describe(config);
}

/**
 * The configured event store, not migrated. An engine whose store one process may open
 * (the embedded one) refuses with StoreBusyError while a server holds it, saying so.
 */
export async function openEventStore(config: Config, clock?: Clock): Promise<EventStore> {
  return eventEngine(config).open(config, { clock });
}

export interface ServerEventStoreHooks extends ReopeningHooks {
  /** The store's upkeep failed (a checkpoint after a write, folding closed days): it is retried. */
  onUpkeepError?: (error: unknown) => void;
}

/**
 * The event store a server runs on, migrated. When the engine's instance can fail for good
 * (EventStoreFailedError), it is opened again by itself whenever it does, so the server
 * recovers once the cause is gone (a full disk has room again).
 */
export async function openServerEventStore(
  config: Config,
  clock: Clock,
  hooks: ServerEventStoreHooks = {},
): Promise<EventStore> {
  const engine = eventEngine(config);
  // A server keeps the aggregates up (folds closed days); commands leave that to it.
  const options: EngineOptions = { clock, onUpkeepError: hooks.onUpkeepError, upkeep: true };
  const store = await engine.open(config, options);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  const reopen = engine.reopen;
  if (!reopen) return store;
  return new ReopeningEventStore(store, () => reopen.call(engine, config, options), hooks);
}

/**
 * For commands that work beside a running server: the event store as openEventStore opens
 * it, or, when a server holds a store only one process may open, that store through the
 * server (every call then runs in the server).
 */
export async function openEventStoreBesideServer(
  config: Config,
  options: Pick<EngineOptions, "existing"> = {},
): Promise<EventStore> {
  const engine = eventEngine(config);
  try {
    return await engine.open(config, options);
  } catch (error) {
    if (!(error instanceof StoreBusyError) || !engine.reachServer) throw error;
    const remote = await engine.reachServer(config);
    if (remote) return remote;
    throw error;
  }
}

/**
 * What a server serves so that openEventStoreBesideServer reaches its store, until closed;
 * null when the engine needs nothing (every process opens the store itself).
 */
export async function serveEventStoreToCommands(config: Config, store: EventStore): Promise<Closable | null> {
  const engine = eventEngine(config);
  return engine.serveCommands ? engine.serveCommands(store, config) : null;
}
