// Keeps an event store usable through a fatal engine error (EventStoreFailedError): the
// failed instance is closed once its calls are over and a fresh one is opened, after a pause
// that doubles up to a ceiling, until one opens and passes its check. Meanwhile every call
// fails at once with StoreUnavailableError (503); callers keep what they could not write.

import { setTimeout as sleep } from "node:timers/promises";
import { StoreUnavailableError } from "../errors.js";
import type {
  DayCounts,
  DaysQuery,
  RealtimeCounts,
  RealtimeQuery,
  StatsBatch,
  StatsPage,
  StatsQuery,
} from "../stats/stats-query.js";
import {
  type EventColumns,
  type EventStore,
  EventStoreFailedError,
  type ExportOptions,
  type StoredEvent,
} from "./ports.js";

/** What callers are told (API clients only that the event store is unavailable); the cause is the failure. */
const UNAVAILABLE = "The event store failed and is being opened again.";
/** The pause before the first attempt; each failed attempt doubles it, up to MAX_DELAY_MS. */
const FIRST_DELAY_MS = 250;
/** The longest pause between attempts: how long the store may stay down once the disk has room again. */
const MAX_DELAY_MS = 5_000;

export interface ReopeningHooks {
  /** Told when the store fails (attempts 0) and when an attempt to open it again fails. */
  onFailure?: (error: unknown, attempts: number, nextAttemptMs: number) => void;
  /** Told when the store is open again, after `attempts` attempts. */
  onReopened?: (attempts: number) => void;
}

export class ReopeningEventStore implements EventStore {
  private current: EventStore | null;
  /** Calls running on each instance: a failed one is closed when its last call is over. */
  private readonly running = new Map<EventStore, number>();
  private drained: (() => void) | null = null;
  /** Why the store is down, while it is. */
  private failure: unknown = null;
  private reopening: Promise<void> | null = null;
  private readonly stop = new AbortController();

  /** `open` opens a fresh instance, migrated and checked (it must write what the failed one could not). */
  constructor(
    store: EventStore,
    private readonly open: () => Promise<EventStore>,
    private readonly hooks: ReopeningHooks = {},
  ) {
    this.current = store;
  }

  migrate(): Promise<void> {
    return this.call((store) => store.migrate());
  }

  insert(batch: EventColumns): Promise<void> {
    return this.call((store) => store.insert(batch));
  }

  queryStat(query: StatsQuery): Promise<StatsPage> {
    return this.call((store) => store.queryStat(query));
  }

  queryDays(query: DaysQuery): Promise<DayCounts> {
    return this.call((store) => store.queryDays(query));
  }

  queryStats(batch: StatsBatch): Promise<StatsPage[]> {
    return this.call((store) => store.queryStats(batch));
  }

  queryRealtime(query: RealtimeQuery): Promise<RealtimeCounts> {
    return this.call((store) => store.queryRealtime(query));
  }

  rebuildAggregates(websiteId?: number): Promise<void> {
    return this.call((store) => store.rebuildAggregates(websiteId));
  }

  setZone(websiteId: number, zone: string): Promise<void> {
    return this.call((store) => store.setZone(websiteId, zone));
  }

  deleteWebsite(websiteId: number): Promise<void> {
    return this.call((store) => store.deleteWebsite(websiteId));
  }

  countEvents(websiteId?: number): Promise<number> {
    return this.call((store) => store.countEvents(websiteId));
  }

  async *exportEvents(options?: ExportOptions): AsyncIterable<StoredEvent[]> {
    const store = this.use();
    try {
      yield* store.exportEvents(options);
    } catch (error) {
      throw this.failed(store, error);
    } finally {
      this.release(store);
    }
  }

  ping(): Promise<void> {
    return this.call((store) => store.ping());
  }

  /** Stops opening again and closes the open instance (after its calls). */
  async close(): Promise<void> {
    this.stop.abort();
    await this.reopening;
    const store = this.current;
    this.current = null;
    this.failure = new Error("The event store is closed.");
    await store?.close();
  }

  private async call<T>(work: (store: EventStore) => Promise<T>): Promise<T> {
    const store = this.use();
    try {
      return await work(store);
    } catch (error) {
      throw this.failed(store, error);
    } finally {
      this.release(store);
    }
  }

  /** The open instance, counted as running a call; throws while there is none. */
  private use(): EventStore {
    const store = this.current;
    if (!store) throw new StoreUnavailableError("event", UNAVAILABLE, { cause: this.failure });
    this.running.set(store, (this.running.get(store) ?? 0) + 1);
    return store;
  }

  private release(store: EventStore): void {
    const left = (this.running.get(store) ?? 1) - 1;
    if (left > 0) this.running.set(store, left);
    else {
      this.running.delete(store);
      if (store !== this.current) this.drained?.();
    }
  }

  /** The error to give the caller; a fatal one takes the instance down and starts opening it again. */
  private failed(store: EventStore, error: unknown): unknown {
    if (!(error instanceof EventStoreFailedError)) return error;
    if (store === this.current) {
      this.current = null;
      this.failure = error;
      this.reopening = this.reopen(store);
    }
    return new StoreUnavailableError("event", UNAVAILABLE, { cause: error });
  }

  private async reopen(failed: EventStore): Promise<void> {
    let delay = FIRST_DELAY_MS;
    this.hooks.onFailure?.(this.failure, 0, delay);
    // The failed instance goes first: two instances must never have the same files open.
    while (this.running.has(failed)) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = null;
    await failed.close().catch(() => undefined);
    for (let attempts = 1; ; attempts++) {
      try {
        await sleep(delay, undefined, { signal: this.stop.signal });
      } catch {
        return; // closed meanwhile
      }
      try {
        const store = await this.open();
        if (this.stop.signal.aborted) {
          await store.close();
          return;
        }
        this.current = store;
        this.failure = null;
        this.reopening = null;
        this.hooks.onReopened?.(attempts);
        return;
      } catch (error) {
        this.failure = error;
        delay = Math.min(delay * 2, MAX_DELAY_MS);
        this.hooks.onFailure?.(error, attempts, delay);
      }
    }
  }
}
