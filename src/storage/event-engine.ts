// What each event-store engine gives open-storage.ts (the one place that picks an engine
// from the configuration): how to open its store, and the optional parts an engine needs
// when its instance can fail for good or when only one process may open its store.

import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { EventStore } from "./ports.js";

export interface EngineOptions {
  /** The server's clock, for engines whose upkeep depends on the day (the system clock by default). */
  clock?: Clock | undefined;
  /** Told when the store's upkeep fails (what was written stands; the upkeep is retried). */
  onUpkeepError?: ((error: unknown) => void) | undefined;
  /** Whether the store keeps its aggregates up on a timer: a server's does, a command's does not (default). */
  upkeep?: boolean | undefined;
  /**
   * Refuse (ConfigError) rather than create a store where there is none: a command that
   * reads a store (export, a rebuild) given a mistyped data directory says so, instead of
   * answering from a new, empty store.
   */
  existing?: boolean | undefined;
}

/** Something an engine serves until it is closed. */
export interface Closable {
  close(): Promise<void>;
}

export interface EventEngine {
  /**
   * Whether the configuration asks for this engine. Engines are asked in the order of
   * open-storage.ts's list; the last, the default, always says yes. Throws ConfigError for
   * this engine's settings that make no sense as given.
   */
  chosenBy(config: Config): boolean;
  /** Where the events live, for messages (never shows a password). */
  describe(config: Config): string;
  /**
   * The store, not migrated. Throws ConfigError for settings that cannot work, and
   * StoreBusyError when another process holds a store only one process may open.
   */
  open(config: Config, options?: EngineOptions): Promise<EventStore>;
  /**
   * For an engine whose instance can fail for good (EventStoreFailedError): a fresh
   * instance from the same files, migrated and checked to write what the failed one could
   * not. A server then keeps its store through such failures (reopening-event-store.ts).
   */
  reopen?(config: Config, options: EngineOptions): Promise<EventStore>;
  /**
   * For a store only one process may open: after open() threw StoreBusyError, that store
   * reached through the running server that holds it, or null when no server answers.
   */
  reachServer?(config: Config): Promise<EventStore | null>;
  /** The running server's side of reachServer: serves its store to commands until closed. */
  serveCommands?(store: EventStore, config: Config): Promise<Closable>;
  /** The files the engine keeps in the data directory (serve makes them private to its user). */
  readonly dataFiles: readonly string[];
}
