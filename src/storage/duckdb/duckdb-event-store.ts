// The embedded event store: one DuckDB file in the data directory, with a single writer.
// Each batch is folded into aggregate deltas in memory (batch-aggregates.ts), then its
// events (their text as numbers, see migrations.ts), new visitor numbers, deltas and the
// places, texts and values it numbered first (string-numbers.ts) are appended in one
// transaction (the appender is the fastest way into DuckDB). Statistics are read from the
// aggregate tables on a second connection; raw events are only read to rebuild aggregates
// or restore a day's memory.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as setImmediatePromise } from "node:timers/promises";
import {
  BIGINT,
  BOOLEAN,
  DATE,
  type DuckDBConnection,
  DuckDBInstance,
  INTEGER,
  TIMESTAMP_S,
  UBIGINT,
  UINTEGER,
  UTINYINT,
  VARCHAR,
} from "@duckdb/node-api";
import { type Clock, systemClock } from "../../clock.js";
import type { StatsPage, StatsQuery } from "../../stats/stats-query.js";
import { EVENT_KIND_CODES, type EventStore, type ExportOptions, type StoredEvent } from "../ports.js";
import {
  LATE_WEEKLY_SQL,
  MERGE_DELTAS_SQL,
  MOVE_DAYS_SQL,
  RECENT_DAYS_SQL,
  ROLLED_NOTHING,
  rebuildSql,
  rollUpWeeksSql,
  statQuerySql,
  WEEKS_BEFORE_SQL,
} from "./aggregate-sql.js";
import {
  BatchFolder,
  type Delta,
  dayNumberFromString,
  dayNumberOf,
  dayString,
  mondayOf,
} from "./batch-aggregates.js";
import { appendColumns, CHUNK_ROWS, type Column, int64Column } from "./column-appender.js";
import { fileFailure, translateDuckDbError } from "./duckdb-errors.js";
import { EVENT_COLUMNS, exportQuery, NUMBERED_TEXT, toStoredEvent } from "./event-rows.js";
import { DUCKDB_MIGRATIONS } from "./migrations.js";
import { StringNumbers } from "./string-numbers.js";
import { VISITOR_COLUMNS, VisitorDay } from "./visitor-day.js";

/** The events table's column types: numbers, the numbered text (event-rows.ts), then `place`. */
const EVENT_TYPES = [
  INTEGER,
  TIMESTAMP_S,
  UINTEGER,
  UTINYINT,
  BOOLEAN,
  ...NUMBERED_TEXT.map(() => UINTEGER),
  UINTEGER,
];
const NUMBERED_TYPES = [UINTEGER, VARCHAR];
const TEXT_VALUE_TYPES = [UTINYINT, UINTEGER, VARCHAR];
/** Where the statistics' counts live; all of them are deleted with a website or a rebuild. */
const AGGREGATE_TABLES = ["daily_stats", "daily_stats_recent", "daily_stats_deltas", "weekly_stats"];
const DELTA_TYPES = [INTEGER, UTINYINT, DATE, UINTEGER, BIGINT];
const ID_TYPES = [INTEGER, DATE, UBIGINT, UINTEGER, DATE];
const DAY_MS = 86_400_000;
/** Visitor-days remembered in memory; older days are reloaded from events when needed. */
const MAX_REMEMBERED_VISITORS = 2_000_000;
/**
 * The block size of a new store file (an existing file keeps its own). DuckDB's default,
 * 256 KiB, gives each small table (schema_migrations, geo_names, places, visitor_ids) a
 * quarter of a megabyte and frees space in that grain when rewritten data is checkpointed;
 * 64 KiB blocks took 1.3-2.2 bytes per event less at a million events (the collection
 * benchmark, and 1,000,000 events seeded in batches of 10,000), the events table no more.
 * Smaller blocks compress every column far worse (16 KiB doubled the file).
 */
const NEW_FILE_BLOCK_BYTES = 65_536;
/** Delta rows appended to daily_stats_deltas before they are merged. */
const COMPACT_AFTER_ROWS = 50_000;

export interface DuckDbOptions {
  /** DuckDB's own memory ceiling, e.g. "256MB". */
  memoryLimit?: string;
  /**
   * DuckDB's worker threads; by default the cores this process may run on. DuckDB counts the
   * machine's cores and ignores CPU affinity: a server pinned to one core (taskset, a
   * container's cpuset) would get extra threads competing with the event loop for that core.
   */
  threads?: number;
  /** Decides which days are recent enough to keep their visitor ids (today, yesterday). */
  clock?: Clock;
  /** Merge tuning (tests use small values to exercise every path). */
  compactAfterRows?: number;
  /**
   * Told when the upkeep after a committed insert (merging the deltas, pruning visitor ids)
   * fails: the insert stands, and the next one tries the upkeep again.
   */
  onUpkeepError?: (error: unknown) => void;
}

export class DuckDbEventStore implements EventStore {
  private writeQueue: Promise<unknown> = Promise.resolve();
  private readonly days = new Map<string, VisitorDay>();
  private rememberedVisitors = 0;
  private uncompactedRows = 0;
  private prunedOn = 0;
  /**
   * The roll-up's bound: every week before it is in weekly_stats, summed exactly as its
   * days in daily_stats. Read from the file by migrate(), then moved forward only after a
   * roll-up is committed: a query that read the old bound reads only the weeks rolled up
   * before it, whichever snapshot it then gets.
   */
  private weeksRolledBefore = ROLLED_NOTHING;
  /** Country codes already in geo_names (read on the first insert), so a batch adds only new ones. */
  private geoCodes: Set<string> | null = null;
  /** City values already in places, with their numbers (read on the first insert). */
  private places: StringNumbers | null = null;
  /** Statistics' values already in stat_values, with their numbers (read on the first insert). */
  private statValues: StringNumbers | null = null;
  /** Per NUMBERED_TEXT field, its values already in text_values, with their numbers (read on the first insert). */
  private texts: StringNumbers[] | null = null;

  private constructor(
    private readonly file: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
    private readonly clock: Clock,
    private readonly compactAfterRows: number,
    private readonly onUpkeepError: (error: unknown) => void,
  ) {}

  static async open(dataDir: string, options: DuckDbOptions = {}): Promise<DuckDbEventStore> {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // the metadata's secrets may share it
    const settings: Record<string, string> = {
      memory_limit: options.memoryLimit ?? "256MB",
      threads: String(options.threads ?? os.availableParallelism()),
      default_block_size: String(NEW_FILE_BLOCK_BYTES),
      // DuckDB 1.5.1 and later can answer wrongly when UNION ALL arms share a join subtree
      // (duckdb/duckdb#25819): arms of the rebuild that all read the events through the
      // same joins got values swapped between columns. Fixed on DuckDB's 1.6 line.
      disabled_optimizers: "common_subplan",
    };
    const file = path.join(dataDir, "events.duckdb");
    let instance: DuckDBInstance | null = null;
    try {
      instance = await DuckDBInstance.create(file, settings);
      const store = new DuckDbEventStore(
        file,
        instance,
        await instance.connect(),
        await instance.connect(),
        options.clock ?? systemClock,
        options.compactAfterRows ?? COMPACT_AFTER_ROWS,
        options.onUpkeepError ?? (() => undefined),
      );
      await store.loadCompactionState();
      return store;
    } catch (error) {
      instance?.closeSync();
      throw fileFailure(error, file, "opening");
    }
  }

  migrate(): Promise<void> {
    return this.migrateSchema().catch((error: unknown) => {
      throw fileFailure(error, this.file, "migrating");
    });
  }

  private async migrateSchema(): Promise<void> {
    await this.serialised(async () => {
      await this.writer.run(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL)",
      );
      const applied = await this.writer.runAndReadAll("SELECT version FROM schema_migrations");
      const done = new Set(applied.getRowObjects().map((row) => Number(row.version)));
      for (const migration of DUCKDB_MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await this.inTransaction(async () => {
          await this.writer.run(migration.sql);
          await this.writer.run("INSERT INTO schema_migrations VALUES ($1, $2)", [
            migration.version,
            migration.name,
          ]);
        });
      }
      await this.loadCompactionState();
    });
  }

  insert(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return this.translated(this.serialised(() => this.insertBatch(events)));
  }

  private async insertBatch(events: readonly StoredEvent[]): Promise<void> {
    const keys = new Map<string, { websiteId: number; dayNumber: number }>();
    for (const event of events) {
      const dayNumber = dayNumberOf(event);
      keys.set(`${event.websiteId}:${dayNumber}`, { websiteId: event.websiteId, dayNumber });
    }
    for (const [key, { websiteId, dayNumber }] of keys) {
      if (!this.days.has(key)) this.days.set(key, await this.loadDay(websiteId, dayNumber));
    }
    if (!this.geoCodes) {
      const codes = await this.writer.runAndReadAll("SELECT DISTINCT code FROM geo_names");
      this.geoCodes = new Set(codes.getRowObjects().map((row) => String(row.code)));
    }
    const knownCodes = this.geoCodes;
    this.places ??= await this.loadNumbers("places", "geo");
    this.statValues ??= await this.loadNumbers("stat_values", "value");
    this.texts ??= await this.loadTexts();
    const { places, statValues, texts } = this;
    const placeNumbers = numberPlaces(events, places);
    const folder = new BatchFolder(events.length, (websiteId, dayNumber) =>
      this.day(`${websiteId}:${dayNumber}`),
    );
    for (let index = 0; index < events.length; index++) {
      // Folding runs on the event loop: a yield as often as the appender's, for the same reason.
      if (index > 0 && index % CHUNK_ROWS === 0) await setImmediatePromise();
      folder.add(events[index] as StoredEvent, index);
    }
    const folded = folder.result();
    const valueIds = Uint32Array.from(folded.deltas, (delta) => statValues.numberOf(delta.value));
    const rows = eventColumns(events, folded.visitorNumbers, placeNumbers, texts);
    const newPlaces = places.takeAdded();
    const newValues = statValues.takeAdded();
    const newTexts = texts.map((numbers) => numbers.takeAdded());
    const today = Math.floor(this.clock.now().getTime() / DAY_MS);
    const added: string[] = [];
    try {
      await this.inTransaction(async () => {
        await appendColumns(await this.writer.createAppender("events"), EVENT_TYPES, rows);
        for (const [table, numbered] of [
          ["places", newPlaces],
          ["stat_values", newValues],
        ] as const) {
          if (numbered.length === 0) continue;
          await appendColumns(await this.writer.createAppender(table), NUMBERED_TYPES, [
            Uint32Array.from(numbered, ([, id]) => id),
            numbered.map(([text]) => text),
          ]);
        }
        const newTextRows = newTexts.flatMap((added, field) =>
          added.map(([text, id]) => ({ field, id, text })),
        );
        if (newTextRows.length > 0) {
          await appendColumns(await this.writer.createAppender("text_values"), TEXT_VALUE_TYPES, [
            Uint8Array.from(newTextRows, (row) => row.field),
            Uint32Array.from(newTextRows, (row) => row.id),
            newTextRows.map((row) => row.text),
          ]);
        }
        for (const [code, names] of newGeoNames(events, knownCodes)) {
          await this.writer.run("INSERT INTO geo_names VALUES ($1, $2, $3)", [
            code,
            names.country,
            names.continent,
          ]);
          added.push(code);
        }
        // Every day's, as its salt may be used again (by the next request of an import).
        const ids = folded.newIds;
        if (ids.length > 0) {
          await appendColumns(await this.writer.createAppender("visitor_ids"), ID_TYPES, [
            Int32Array.from(ids, (id) => id.websiteId),
            Int32Array.from(ids, (id) => dayNumberFromString(id.day)),
            BigUint64Array.from(ids, (id) => id.hash),
            Uint32Array.from(ids, (id) => id.number),
            new Int32Array(ids.length).fill(today),
          ]);
        }
        const { deltas } = folded;
        await appendColumns(await this.writer.createAppender("daily_stats_deltas"), DELTA_TYPES, [
          Int32Array.from(deltas, (delta) => delta.websiteId),
          Uint8Array.from(deltas, (delta) => delta.statId),
          Int32Array.from(deltas, (delta) => dayNumberFromString(delta.day)),
          valueIds,
          int64Column(deltas.length, (row) => (deltas[row] as Delta).count),
        ]);
      });
    } catch (error) {
      for (const key of keys.keys()) this.forgetDay(key); // their memory now runs ahead of storage
      places.forget(newPlaces);
      statValues.forget(newValues);
      texts.forEach((numbers, field) => {
        numbers.forget(newTexts[field] ?? []);
      });
      throw error;
    }
    for (const code of added) knownCodes.add(code);
    for (const key of keys.keys()) this.touch(key);
    this.uncompactedRows += folded.deltas.length;
    // The batch is committed: a failure from here on must not fail the insert, or the
    // caller would write the batch again. Upkeep is retried by the next insert; a fatal
    // error (a checkpoint that found the disk full) fails the next call on this store.
    try {
      if (this.uncompactedRows >= this.compactAfterRows) await this.compact();
      await this.pruneVisitorIds(today);
    } catch (error) {
      this.onUpkeepError(translateDuckDbError(error, this.file));
    }
  }

  queryStat(query: StatsQuery): Promise<StatsPage> {
    return this.translated(this.readStat(query));
  }

  private async readStat(query: StatsQuery): Promise<StatsPage> {
    const { page, total } = statQuerySql(query, this.weeksRolledBefore);
    const rows = (await this.reader.runAndReadAll(page.sql, page.params)).getRowObjects();
    let count = Number(rows[0]?.total ?? 0);
    if (rows.length === 0 && query.offset > 0) {
      const counted = await this.reader.runAndReadAll(total.sql, total.params);
      count = Number(counted.getRowObjects()[0]?.total ?? 0);
    }
    return { rows: rows.map((row) => ({ value: String(row.value), count: Number(row.n) })), total: count };
  }

  rebuildAggregates(websiteId?: number): Promise<void> {
    return this.translated(
      this.serialised(() =>
        this.inTransaction(async () => {
          const where = websiteId === undefined ? "" : " WHERE website_id = $1";
          const params = websiteId === undefined ? [] : [websiteId];
          // Weeks already rolled up are rolled up again from the rebuilt days.
          const weeksBefore = this.weeksRolledBefore;
          for (const table of AGGREGATE_TABLES) await this.writer.run(`DELETE FROM ${table}${where}`, params);
          const [rebuild, ...numberAndInsert] = rebuildSql(websiteId !== undefined);
          await this.writer.run(rebuild as string, params);
          for (const statement of numberAndInsert) await this.writer.run(statement);
          this.statValues = null; // values new to the rebuild were numbered in SQL: read them again
          await this.writer.run(rollUpWeeksSql(websiteId !== undefined), [
            ROLLED_NOTHING,
            weeksBefore,
            ...params,
          ]);
        }),
      ),
    );
  }

  deleteWebsite(websiteId: number): Promise<void> {
    return this.translated(
      this.serialised(async () => {
        await this.inTransaction(async () => {
          for (const table of ["events", ...AGGREGATE_TABLES, "visitor_ids"]) {
            await this.writer.run(`DELETE FROM ${table} WHERE website_id = $1`, [websiteId]);
          }
        });
        for (const key of [...this.days.keys()]) if (key.startsWith(`${websiteId}:`)) this.forgetDay(key);
      }),
    );
  }

  countEvents(websiteId?: number): Promise<number> {
    return this.translated(this.count(websiteId));
  }

  private async count(websiteId?: number): Promise<number> {
    const result =
      websiteId === undefined
        ? await this.reader.runAndReadAll("SELECT count(*) AS n FROM events")
        : await this.reader.runAndReadAll("SELECT count(*) AS n FROM events WHERE website_id = $1", [
            websiteId,
          ]);
    return Number(result.getRowObjects()[0]?.n ?? 0);
  }

  /** Events in stored order; `visitor` is unique per website and day (day number << 32 | visitor number). */
  listEvents(websiteId: number): Promise<StoredEvent[]> {
    return this.translated(this.readEvents(websiteId));
  }

  private async readEvents(websiteId: number): Promise<StoredEvent[]> {
    const result = await this.reader.runAndReadAll(
      `SELECT ${EVENT_COLUMNS} FROM events_view e WHERE website_id = $1 ORDER BY ts, seq`,
      [websiteId],
    );
    return result.getRowObjects().map(toStoredEvent);
  }

  /**
   * Streams the events a chunk at a time (DuckDB's vector size), on the reader connection so
   * inserts are not held up. A visitor is its hash for the days visitor_ids still covers,
   * else a per-day stand-in (see event-rows.ts).
   */
  async *exportEvents(options: ExportOptions = {}): AsyncIterable<StoredEvent[]> {
    const { sql, params } = exportQuery(options);
    let connection: DuckDBConnection | null = null;
    try {
      // A connection of its own: a running server's queries on the reader would end the stream.
      connection = await this.instance.connect();
      const result = await connection.stream(sql, params);
      for await (const rows of result.yieldRowObjects()) {
        if (rows.length > 0) yield rows.map(toStoredEvent);
      }
    } catch (error) {
      throw translateDuckDbError(error, this.file);
    } finally {
      connection?.closeSync();
    }
  }

  async ping(): Promise<void> {
    await this.translated(this.reader.run("SELECT 1"));
  }

  /**
   * Writes everything in the log into the file. After a fatal error this is what failed
   * (the checkpoint needs room for the log's content), so opening again checks with it.
   */
  async checkpoint(): Promise<void> {
    await this.translated(this.serialised(() => this.writer.run("CHECKPOINT")));
  }

  /**
   * Waits for the writes under way, then closes. The deltas not merged yet stay for the
   * next start (queries read them, and the next compaction merges them): merging now would
   * free blocks that nothing written afterwards reuses, leaving the stopped file larger.
   */
  async close(): Promise<void> {
    await this.serialised(async () => undefined).catch(() => undefined);
    this.reader.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  /** The numbers of a table of numbered strings (`id`, `column`). */
  private async loadNumbers(table: "places" | "stat_values", column: string): Promise<StringNumbers> {
    const rows = await this.writer.runAndReadAll(`SELECT id, ${column} AS text FROM ${table}`);
    return new StringNumbers(rows.getRowObjects().map((row) => [String(row.text), Number(row.id)]));
  }

  /** The numbers of each NUMBERED_TEXT field's values, from text_values. */
  private async loadTexts(): Promise<StringNumbers[]> {
    const rows = (
      await this.writer.runAndReadAll("SELECT field, id, value FROM text_values")
    ).getRowObjects();
    return NUMBERED_TEXT.map(
      (_, field) =>
        new StringNumbers(
          rows.filter((row) => Number(row.field) === field).map((row) => [String(row.value), Number(row.id)]),
        ),
    );
  }

  /** Rebuilds a day's memory from its stored events and recent visitor ids. */
  private async loadDay(websiteId: number, dayNumber: number): Promise<VisitorDay> {
    const day = new VisitorDay(dayString(dayNumber));
    const from = new Date(dayNumber * DAY_MS).toISOString();
    const to = new Date((dayNumber + 1) * DAY_MS).toISOString();
    const ids = await this.writer.runAndReadAll(
      "SELECT hash, visitor FROM visitor_ids WHERE website_id = $1 AND day = CAST($2 AS DATE)",
      [websiteId, day.day],
    );
    for (const row of ids.getRowObjects()) day.remember(BigInt(row.hash as bigint), Number(row.visitor));
    const stored = await this.writer.runAndReadAll(
      `SELECT visitor, kind, CAST(hour(ts) AS INTEGER) AS hour, ${VISITOR_COLUMNS.map((c) => c.column).join(", ")}
       FROM events_view WHERE website_id = $1 AND ts >= CAST($2 AS TIMESTAMP) AND ts < CAST($3 AS TIMESTAMP)
       ORDER BY ts, seq`,
      [websiteId, from, to],
    );
    for (const row of stored.getRowObjects()) {
      const number = Number(row.visitor);
      if (Number(row.kind) === EVENT_KIND_CODES.pageview) {
        day.pageview(
          number,
          Number(row.hour),
          VISITOR_COLUMNS.map((c) => String(row[c.column])),
        );
      } else {
        day.reserve(number);
      }
    }
    this.rememberedVisitors += day.visitors;
    return day;
  }

  private day(key: string): VisitorDay {
    const day = this.days.get(key);
    if (!day) throw new Error(`day ${key} was not loaded`);
    return day;
  }

  /** Marks a day most recently used and forgets the least recently used beyond the limit. */
  private touch(key: string): void {
    const day = this.days.get(key);
    if (!day) return;
    this.days.delete(key);
    this.days.set(key, day);
    this.rememberedVisitors = [...this.days.values()].reduce((sum, d) => sum + d.visitors, 0);
    for (const oldest of this.days.keys()) {
      if (this.rememberedVisitors <= MAX_REMEMBERED_VISITORS || oldest === key) break;
      this.forgetDay(oldest);
    }
  }

  private forgetDay(key: string): void {
    const day = this.days.get(key);
    if (!day) return;
    this.days.delete(key);
    this.rememberedVisitors -= day.visitors;
  }

  /**
   * Merges the deltas into daily_stats_recent, then moves its days older than yesterday
   * into daily_stats, but for the newest of them: an import in time order may still be
   * filling that day. Live traffic and imports in time order so move each day once, as one
   * row per value; whole weeks moved are then rolled up into weekly_stats.
   */
  private async compact(): Promise<void> {
    if (this.uncompactedRows === 0) return;
    const yesterday = dayString(Math.floor(this.clock.now().getTime() / DAY_MS) - 1);
    let rolledUpTo: string | null = null;
    await this.inTransaction(async () => {
      for (const statement of MERGE_DELTAS_SQL) await this.writer.run(statement);
      const days = (await this.writer.runAndReadAll(RECENT_DAYS_SQL))
        .getRowObjects()
        .map((row) => String(row.day));
      const older = days.filter((day) => day < yesterday); // newest first
      if (older.length < 2) return;
      const moveBefore = older[0] as string;
      await this.writer.run(MOVE_DAYS_SQL.insert, [moveBefore]);
      await this.writer.run(LATE_WEEKLY_SQL, [moveBefore, this.weeksRolledBefore]);
      await this.writer.run(MOVE_DAYS_SQL.delete, [moveBefore]);
      // Every week that ends before the move's bound now has all its days in daily_stats.
      const rolledBefore = this.weeksRolledBefore;
      const rollBefore = dayString(mondayOf(dayNumberFromString(moveBefore)));
      if (rollBefore > rolledBefore) {
        await this.writer.run(rollUpWeeksSql(false), [rolledBefore, rollBefore]);
        rolledUpTo = rollBefore;
      }
    });
    if (rolledUpTo) this.weeksRolledBefore = rolledUpTo;
    // Write the merge out now, so the blocks it freed are reused by the next batches
    // instead of accumulating as free space in the file.
    await this.writer.run("CHECKPOINT");
    this.uncompactedRows = 0;
  }

  /**
   * Reads what compaction goes on from, on opening and after migrating: the roll-up's
   * bound (see WEEKS_BEFORE_SQL; a compaction must never start from an earlier bound than
   * the file's, or it would roll weeks up twice) and the deltas not merged yet (a stopped
   * store leaves them, see close()). A file not migrated yet has neither.
   */
  private async loadCompactionState(): Promise<void> {
    const tables = await this.writer.runAndReadAll(
      "SELECT count(*) AS n FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'weekly_stats'",
    );
    if (Number(tables.getRowObjects()[0]?.n ?? 0) === 0) return;
    const result = await this.writer.runAndReadAll(
      `SELECT strftime(${WEEKS_BEFORE_SQL}, '%Y-%m-%d') AS day, (SELECT count(*) FROM daily_stats_deltas) AS deltas`,
    );
    const row = result.getRowObjects()[0];
    this.weeksRolledBefore = String(row?.day ?? ROLLED_NOTHING);
    this.uncompactedRows = Number(row?.deltas ?? 0);
  }

  /**
   * Once a day, deletes the visitor ids of days whose salts are surely gone: days before
   * yesterday with no number written for three days (a salt lives 48 hours past its last
   * use, and a write follows the use; see visitor-hasher.ts). A hash whose salt is gone can
   * never be computed again, so its number would never be asked for.
   */
  private async pruneVisitorIds(today: number): Promise<void> {
    if (today <= this.prunedOn) return;
    await this.writer.run(
      `DELETE FROM visitor_ids WHERE day < CAST($1 AS DATE) AND (website_id, day) IN (
         SELECT website_id, day FROM visitor_ids GROUP BY ALL HAVING max(written) < CAST($2 AS DATE))`,
      [dayString(today - 1), dayString(today - 2)],
    );
    this.prunedOn = today;
  }

  /** The call's DuckDB errors as the port's (duckdb-errors.ts). */
  private translated<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      throw translateDuckDbError(error, this.file);
    });
  }

  /** Runs write work one batch at a time on the writer connection. */
  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(work, work);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  private async inTransaction(work: () => Promise<void>): Promise<void> {
    await this.writer.run("BEGIN TRANSACTION");
    try {
      await work();
      await this.writer.run("COMMIT");
    } catch (error) {
      await this.writer.run("ROLLBACK").catch(() => undefined);
      throw error;
    }
  }
}

/** The events table's columns, in its order (EVENT_TYPES), numbering text new to `texts` (one per NUMBERED_TEXT field). */
function eventColumns(
  events: readonly StoredEvent[],
  visitors: Uint32Array<ArrayBuffer>,
  places: Uint32Array<ArrayBuffer>,
  texts: readonly StringNumbers[],
): Column[] {
  return [
    Int32Array.from(events, (event) => event.websiteId),
    int64Column(events.length, (row) => Math.floor((events[row] as StoredEvent).ts.getTime() / 1000)),
    visitors,
    Uint8Array.from(events, (event) => EVENT_KIND_CODES[event.kind]),
    Uint8Array.from(events, (event) => (event.isVisit ? 1 : 0)),
    ...NUMBERED_TEXT.map((field, index) =>
      textNumbers(events, READ_TEXT[field], texts[index] as StringNumbers),
    ),
    places,
  ];
}

/**
 * Each numbered field read by a function of its own: `event[field]` over nine fields is a
 * megamorphic load, and with the numbering it took a tenth of the main thread's time
 * during an import.
 */
const READ_TEXT: { readonly [F in (typeof NUMBERED_TEXT)[number]]: (event: StoredEvent) => string } = {
  page: (event) => event.page,
  referrer: (event) => event.referrer,
  campaign: (event) => event.campaign,
  browser: (event) => event.browser,
  os: (event) => event.os,
  device: (event) => event.device,
  resolution: (event) => event.resolution,
  language: (event) => event.language,
  event: (event) => event.event,
};

/** One field's numbers; a value equal to the previous event's is not looked up again (runs are common). */
function textNumbers(
  events: readonly StoredEvent[],
  read: (event: StoredEvent) => string,
  numbers: StringNumbers,
): Uint32Array<ArrayBuffer> {
  const column = new Uint32Array(events.length);
  let last: string | null = null;
  let lastNumber = 0;
  for (let row = 0; row < events.length; row++) {
    const value = read(events[row] as StoredEvent);
    if (value !== last) {
      last = value;
      lastNumber = numbers.numberOf(value);
    }
    column[row] = lastNumber;
  }
  return column;
}

/** Each event's place number, numbering new city values; 0 when nothing is known of where it came from. */
function numberPlaces(events: readonly StoredEvent[], places: StringNumbers): Uint32Array<ArrayBuffer> {
  const numbers = new Uint32Array(events.length);
  events.forEach((event, row) => {
    const geo = geoKey(event);
    if (geo !== "") numbers[row] = places.numberOf(geo);
  });
  return numbers;
}

/** `US:Boston`; `US:` when only the country is known; "" when nothing is. */
function geoKey(event: StoredEvent): string {
  if (event.country === "") return "";
  return event.city !== "" ? event.city : `${countryCode(event.country)}:`;
}

/** `US` of `US:United States`. */
function countryCode(country: string): string {
  const colon = country.indexOf(":");
  return colon < 0 ? country : country.slice(0, colon);
}

/** The country and continent values of each country code in the batch not `known` yet, as the pipeline made them. */
function newGeoNames(
  events: readonly StoredEvent[],
  known: ReadonlySet<string>,
): Map<string, { country: string; continent: string }> {
  const names = new Map<string, { country: string; continent: string }>();
  for (const event of events) {
    const country = event.country;
    if (country === "") continue;
    const code = countryCode(country);
    if (!known.has(code) && !names.has(code)) names.set(code, { country, continent: event.continent });
  }
  return names;
}
