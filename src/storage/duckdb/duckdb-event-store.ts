// The embedded event store: one DuckDB file in the data directory, with a single writer.
// A batch is appended in one transaction with the text values and visitors it numbered (the
// appender is the fastest way into DuckDB); settled days are folded into daily_stats
// (aggregate-sql.ts). Nothing but a batch and the numbers of text values is held in JavaScript.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BOOLEAN,
  DATE,
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBType,
  type DuckDBValue,
  INTEGER,
  TIMESTAMP_S,
  UBIGINT,
  UINTEGER,
  UTINYINT,
  VARCHAR,
} from "@duckdb/node-api";
import { type Clock, systemClock } from "../../clock.js";
import { ConfigError } from "../../config.js";
import { daysFrom } from "../../stats/day-rule.js";
import {
  batchQueries,
  type DayCounts,
  type DaysQuery,
  type RealtimeCounts,
  type RealtimeQuery,
  type StatsBatch,
  type StatsPage,
  type StatsQuery,
} from "../../stats/stats-query.js";
import { DEFAULT_TIME_ZONE, zoneRule } from "../../stats/time-zone.js";
import { isVisitFlag, kindCodeOfFlag, textColumn } from "../event-columns.js";
import type { EngineOptions } from "../event-engine.js";
import type { EventColumns, EventStore, ExportOptions, StoredEvent } from "../ports.js";
import {
  changedEventsSql,
  changedVisitsStatements,
  countsMatchedRows,
  countsVisitorDays,
  dayCountsSql,
  dayEventsSql,
  dayVisitsStatements,
  filtersVisitorAttributes,
  foldDaySql,
  foldedPagesSql,
  KEPT_CHANGES_TABLE_SQL,
  keptChangesStatements,
  keptDayStatements,
  matchedRowsPagesSql,
  numberedField,
  openDayEventsSql,
  pageOrderSql,
  readsFoldedVisits,
  statQuerySql,
  summedPageSql,
  timeSql,
  type VisitorSlice,
  visitEventsSql,
  visitorDaysStatSql,
  visitorDaysTableStatements,
} from "./aggregate-sql.js";
import { appendColumns, type Column, int64Column } from "./column-appender.js";
import { fileFailure, translateDuckDbError } from "./duckdb-errors.js";
import { exportQuery, NUMBERED_TEXT, toStoredEvent } from "./event-rows.js";
import { DUCKDB_MIGRATIONS } from "./migrations.js";
import { StringNumbers } from "./string-numbers.js";
import { dayNumberFromString, dayNumberOf, dayString } from "./utc-days.js";
import { numberVisitors } from "./visitor-numbers.js";

/** The events table's column types: numbers, the numbered text (event-rows.ts), `place`, then `round`. */
const EVENT_TYPES = [
  INTEGER,
  TIMESTAMP_S,
  UINTEGER,
  UTINYINT,
  BOOLEAN,
  ...NUMBERED_TEXT.map(() => UINTEGER),
  UINTEGER,
  UINTEGER,
];
const NUMBERED_TYPES = [UINTEGER, VARCHAR];
const TEXT_VALUE_TYPES = [UTINYINT, UINTEGER, VARCHAR];
const ID_TYPES = [INTEGER, DATE, UBIGINT, UINTEGER, DATE];
const DAY_TYPES = [INTEGER, DATE, TIMESTAMP_S, BOOLEAN];
const CHANGE_TYPES = [INTEGER, DATE, UINTEGER];
/**
 * A window's days counted from their events (`open`), and of those the kept ones (see
 * windowDays); shared by the queries that ask, so never changed.
 */
interface WindowDays {
  open: readonly string[];
  kept: readonly string[];
}
/** Windows whose days are kept at most until the next write: a dashboard asks for two or three. */
const MAX_WINDOWS_KEPT = 64;
/** Every table with rows of a website, all emptied when it is deleted. */
const WEBSITE_TABLES = [
  "events",
  "daily_stats",
  "day_visits",
  "visit_days",
  "visitor_changes",
  "visitor_ids",
  "event_days",
  "event_websites",
];
/**
 * How long a day that ended must go unwritten before it is folded: an import writes a day
 * in requests milliseconds to seconds apart, and folding it between two of them would fold
 * it again after each. Until it is folded, a day is counted from its raw events, which is
 * exact, only slower.
 */
const SETTLE_MS = 10_000;
/**
 * The most events of a day whose visits a fold finds in one statement (foldDaySql's
 * `parts`). Finding the visits of a day of 3.5M events at once needs more than 128 MB, and
 * with 256 MB it failed once DuckDB's cache held the blocks an import had just written
 * (seeding 100M events, bench/RESULTS.md: "Out of Memory Error"): its window functions hold
 * every event they read. A part of 500,000 needs about a seventh of that.
 */
const FOLD_PART_EVENTS = 500_000;
/** How often the store looks for days to fold (and, once a day, visitor ids to delete). */
const UPKEEP_INTERVAL_MS = 5_000;
/**
 * The fewest events of a day that a fold stores again in page order (pageOrderSql): one
 * of DuckDB's row groups (122,880 rows), which DuckDB writes straight into the file. A
 * smaller day shares its row groups with other days and a filter reads it in a few
 * milliseconds anyway, while the rewrite costs each fold two more statements' worth of
 * work: with it for every day, the store's aggregates tests (thousands of small folds)
 * took 87 s on one core against 79, and CI about a minute more.
 */
const PAGE_ORDER_EVENTS = 122_880;
/** The log's size from which an insert checkpoints after committing: DuckDB's default threshold. */
const CHECKPOINT_LOG_BYTES = 16 * 1024 * 1024;
/**
 * The block size of a new store file (an existing file keeps its own). DuckDB's default,
 * 256 KiB, gives each small table (schema_migrations, geo_names, places, visitor_ids) a
 * quarter of a megabyte and frees space in that grain when rewritten data is checkpointed;
 * 64 KiB blocks took 1.3-2.2 bytes per event less at a million events (the collection
 * benchmark, and 1,000,000 events seeded in batches of 10,000), the events table no more.
 * Smaller blocks compress every column far worse (16 KiB doubled the file).
 */
const NEW_FILE_BLOCK_BYTES = 65_536;

/** What geo_names, places and text_values (per NUMBERED_TEXT field) hold, so a batch adds only new rows. */
interface Numbered {
  geoCodes: Set<string>;
  places: StringNumbers;
  texts: StringNumbers[];
}

/** The settings the store opens DuckDB with. */
export function duckDbSettings(): Record<string, string> {
  return {
    // DuckDB's cache and working memory; what does not fit spills to events.duckdb.tmp.
    // 128 MB against 256 (bench/RESULTS.md, "The dashboard; DuckDB's memory"): importing
    // 10M events peaked at 542 MiB against 626, answering filtered statistics at 100M at
    // 559 MB against 918, in about the same time; 100M events seed and fold within it.
    // DuckDB 1.5.5 kept a part of what was appended between two checkpoints for good (a
    // 100M store ran out at 67.8M with 128 MB); duckdb-storage.test.ts checks that the
    // engine lets it go.
    memory_limit: "128MB",
    // The cores this process may run on: DuckDB counts the machine's and ignores CPU
    // affinity, so a server pinned to one core (taskset, a container's cpuset) would get
    // extra threads competing with the event loop for that core.
    threads: String(os.availableParallelism()),
    default_block_size: String(NEW_FILE_BLOCK_BYTES),
    // DuckDB 1.5.1 and later can answer wrongly when UNION ALL arms share a join subtree
    // (duckdb/duckdb#25819): arms that all read the events through the same joins got
    // values swapped between columns (seen in an earlier rebuild that was one UNION of
    // every statistic; a query's folded and open arms are such a UNION). Fixed on 1.6.
    disabled_optimizers: "common_subplan",
    // No checkpoint inside a COMMIT: one that fails (a full disk) fails the COMMIT although
    // the batch is in the log, and the caller would write it again. The store checkpoints
    // after committing instead (checkpointIfLogIsLarge).
    checkpoint_threshold: "1TB",
  };
}

/** A page size that takes every value of a statistic (readStatInParts). */
const EVERY_VALUE = 2 ** 31 - 1;

/** Days of a window counted in one statement, which of them are open, and whose visitors. */
interface WindowPart {
  range: { from: string; to: string };
  open: string[];
  /** Of an open day too large for one statement: the slice of its visitors counted. */
  visitors?: VisitorSlice;
  /** Open days whose counts and visits are kept (aggregate-sql.ts, ReadOptions.keptDays). */
  kept?: string[];
}

/**
 * A window cut where its visits are counted from raw events: each open day alone, the
 * folded days between them together. The window functions that find visits hold every
 * event they read for as long as the statement runs (even a UNION ALL of one arm per day
 * did), so one statement over a month of open days (a website's whole history after a
 * change of time zone, or a large import not folded yet) needs memory for all of them: at
 * 10M events, exit pages ran out of DuckDB's 128 MB and the other visit statistics took
 * 7-10 s on one core, against 5.5-9 s a day at a time (bench/RESULTS.md, "Visits of open
 * days counted a day at a time"). A statement of one open day needs that day's memory alone,
 * and an open day of more than `partEvents` events (`eventsOf` says how many each holds) is
 * cut further into VisitorSlices as a fold cuts it: a website's today of 3.8M events ran
 * out of memory in the exit pages, as one statement (bench/RESULTS.md, "An open day of
 * millions of events").
 */
function windowParts(
  window: { from: string; to: string },
  openDays: readonly string[],
  eventsOf: ReadonlyMap<string, number>,
  partEvents: number,
): WindowPart[] {
  const open = new Set(openDays);
  const parts: WindowPart[] = [];
  let folded: string[] = [];
  const flush = () => {
    if (folded.length > 0)
      parts.push({ range: { from: folded[0] as string, to: folded.at(-1) as string }, open: [] });
    folded = [];
  };
  for (const day of daysFrom(window.from, window.to)) {
    if (!open.has(day)) {
      folded.push(day);
      continue;
    }
    flush();
    const slices = sliceCount(eventsOf.get(day) ?? 0, partEvents);
    if (slices === 1) parts.push({ range: { from: day, to: day }, open: [day] });
    else
      for (let part = 0; part < slices; part++)
        parts.push({ range: { from: day, to: day }, open: [day], visitors: { parts: slices, part } });
  }
  flush();
  return parts;
}

/** The key of a website's day in DuckDbEventStore.changeSets. */
function changeSetKey(websiteId: number, day: string): string {
  return `${websiteId} ${day}`;
}

/** The VisitorSlices a day of `events` events is read in, at most about `partEvents` each. */
function sliceCount(events: number, partEvents: number): number {
  return Math.max(1, Math.ceil(events / partEvents));
}

export class DuckDbEventStore implements EventStore {
  private writeQueue: Promise<unknown> = Promise.resolve();
  private prunedOn = 0;
  private readonly timer: NodeJS.Timeout | null;
  /** The upkeep under way, which close() lets finish its step and stop. */
  private upkeepRun: Promise<void> | null = null;
  private closing = false;
  /** What the store has numbered, read on the first insert (see loadNumbered). */
  private numbered: Numbered | null = null;
  /**
   * The round an insert marks its events with (events.round), read on first need: one past
   * the last round a day's counts and visits were kept at (visit_days.round). Keeping a day
   * ends the round, so its counts hold exactly the events of that round and before, and a
   * statistic adds the later ones (aggregate-sql.ts, keptDayStatements). Inserts and
   * keeps run one at a time (serialised), so none is marked with a round already kept.
   */
  private round: number | null = null;
  /**
   * Each website's time zone as event_websites holds it (absent: UTC), read once: the days an
   * insert opens and a fold counts are its local days. One entry per website with a zone.
   */
  private zoneList: Promise<Map<number, string>> | null = null;
  /**
   * Writes settled (serialised steps that may change the data): a kept day's changes, and a
   * window's days, found before the last one may be out of date.
   */
  private writes = 0;
  /** The sets of kept days' changes the reader holds (keptChanges), by website and day: whether it does. */
  private readonly changeSets = new Map<string, { writes: number; ready: Promise<boolean> }>();
  /** The last set's version: each new set's is greater. */
  private changeSetVersion = 0;
  /** windowDays' answers since write number `writes`, by website, zone and range. */
  private windows = { writes: -1, days: new Map<string, Promise<WindowDays>>() };
  /** The last batch's number (readStats): each names its temporary tables with its own. */
  private batches = 0;

  private constructor(
    private readonly file: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
    private readonly clock: Clock,
    upkeep: boolean,
    private readonly onUpkeepError: (error: unknown) => void,
    private readonly foldPartEvents: number,
    private readonly pageOrderEvents: number,
    private readonly onDayFolded: (websiteId: number, day: string) => void,
  ) {
    this.timer = upkeep
      ? setInterval(() => {
          this.upkeep().catch((error: unknown) => this.onUpkeepError(error));
        }, UPKEEP_INTERVAL_MS).unref()
      : null;
  }

  /**
   * The data directory's store; with `upkeep` it runs upkeep() every UPKEEP_INTERVAL_MS by
   * itself. `foldPartEvents` (FOLD_PART_EVENTS by default) and `pageOrderEvents`
   * (PAGE_ORDER_EVENTS) let tests fold small days in parts and store them in page order,
   * `memoryLimit` (duckDbSettings) run small stores within as little memory as large ones
   * meet, and `onDayFolded` see the days folded, in their order.
   */
  static async open(
    dataDir: string,
    options: EngineOptions & {
      foldPartEvents?: number;
      pageOrderEvents?: number;
      memoryLimit?: string;
      onDayFolded?: (websiteId: number, day: string) => void;
    } = {},
  ): Promise<DuckDbEventStore> {
    const file = path.join(dataDir, "events.duckdb");
    if (options.existing && !fs.existsSync(file)) {
      throw new ConfigError(
        `${dataDir} holds no event store (no events.duckdb): check --data-dir or ANALYTICS_DATA_DIR.`,
      );
    }
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // the metadata's secrets may share it
    const settings = {
      ...duckDbSettings(),
      ...(options.memoryLimit ? { memory_limit: options.memoryLimit } : {}),
    };
    let instance: DuckDBInstance | null = null;
    try {
      instance = await DuckDBInstance.create(file, settings);
      const writer = await instance.connect();
      const reader = await instance.connect();
      await reader.run(KEPT_CHANGES_TABLE_SQL);
      return new DuckDbEventStore(
        file,
        instance,
        writer,
        reader,
        options.clock ?? systemClock,
        options.upkeep ?? false,
        options.onUpkeepError ?? (() => undefined),
        options.foldPartEvents ?? FOLD_PART_EVENTS,
        options.pageOrderEvents ?? PAGE_ORDER_EVENTS,
        options.onDayFolded ?? (() => undefined),
      );
    } catch (error) {
      instance?.closeSync();
      throw fileFailure(error, file, "opening");
    }
  }

  migrate(): Promise<void> {
    const migrated = this.serialised(async () => {
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
    });
    return migrated.catch((error: unknown) => {
      throw fileFailure(error, this.file, "migrating");
    });
  }

  insert(batch: EventColumns): Promise<void> {
    if (batch.count === 0) return Promise.resolve();
    return this.translated(this.serialised(() => this.insertBatch(batch)));
  }

  private async insertBatch(batch: EventColumns): Promise<void> {
    this.numbered ??= await this.loadNumbered();
    const zones = await this.zones();
    const { geoCodes: knownCodes, places, texts } = this.numbered;
    const placeNumbers = numberPlaces(batch, places);
    const textColumns = NUMBERED_TEXT.map((field, index) =>
      textNumbers(textColumn(batch, field), texts[index] as StringNumbers),
    );
    const newPlaces = places.takeAdded();
    const newTexts = texts.map((numbers) => numbers.takeAdded());
    const now = this.clock.now();
    const added: string[] = [];
    try {
      await this.inTransaction(async () => {
        const numbered = await numberVisitors(this.writer, batch, (websiteId, ms) =>
          zoneRule(zones.get(websiteId) ?? DEFAULT_TIME_ZONE).dayOf(ms),
        );
        await appendColumns(
          await this.writer.createAppender("events"),
          EVENT_TYPES,
          eventColumns(batch, numbered.visitors, textColumns, placeNumbers, await this.currentRound()),
        );
        if (newPlaces.length > 0) {
          await appendColumns(await this.writer.createAppender("places"), NUMBERED_TYPES, [
            Uint32Array.from(newPlaces, ([, id]) => id),
            newPlaces.map(([text]) => text),
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
        for (const [code, names] of newGeoNames(batch, knownCodes)) {
          await this.writer.run("INSERT INTO geo_names VALUES ($1, $2, $3)", [
            code,
            names.country,
            names.continent,
          ]);
          added.push(code);
        }
        // Every day's, as its salt may be used again (by the next request of an import).
        const ids = numbered.newIds;
        if (ids.numbers.length > 0) {
          await appendColumns(await this.writer.createAppender("visitor_ids"), ID_TYPES, [
            ids.websiteIds,
            ids.days,
            ids.hashes,
            ids.numbers,
            new Int32Array(ids.numbers.length).fill(dayNumberOf(now)),
          ]);
        }
        for (const website of numbered.websites) {
          await this.writer.run(
            website.known
              ? "UPDATE event_websites SET visitors = $2 WHERE website_id = $1"
              : "INSERT INTO event_websites VALUES ($1, $3, $2)",
            website.known
              ? [website.websiteId, website.visitors]
              : [website.websiteId, website.visitors, zones.get(website.websiteId) ?? DEFAULT_TIME_ZONE],
          );
        }
        // The batch's local days: written now, open (not folded).
        await this.writer.run(
          "DELETE FROM event_days WHERE (website_id, day) IN (SELECT DISTINCT website_id, day FROM batch_visitors)",
        );
        const days = numbered.days;
        await appendColumns(await this.writer.createAppender("event_days"), DAY_TYPES, [
          Int32Array.from(days, (day) => day.websiteId),
          Int32Array.from(days, (day) => day.day),
          int64Column(days.length, () => Math.floor(now.getTime() / 1000)),
          new Uint8Array(days.length),
        ]);
        // Their visitors' visits kept in day_visits are out of date until found again.
        const changed = numbered.visitorDays;
        await appendColumns(await this.writer.createAppender("visitor_changes"), CHANGE_TYPES, [
          changed.websiteIds,
          changed.days,
          changed.numbers,
        ]);
      });
    } catch (error) {
      places.forget(newPlaces);
      texts.forEach((numbers, field) => {
        numbers.forget(newTexts[field] ?? []);
      });
      throw error;
    }
    for (const code of added) knownCodes.add(code);
    // The batch is committed: a failure from here on must not fail the insert, or the
    // caller would write the batch again. A fatal one fails the next call on this store.
    try {
      await this.checkpointIfLogIsLarge();
    } catch (error) {
      this.onUpkeepError(translateDuckDbError(error, this.file));
    }
  }

  /** The round this store's inserts mark their events with now (see `round`). */
  private async currentRound(): Promise<number> {
    if (this.round === null) {
      const read = await this.writer.runAndReadAll(
        "SELECT coalesce(max(round), 0) + 1 AS round FROM visit_days",
      );
      this.round = Number(read.getRowObjects()[0]?.round ?? 1);
    }
    return this.round;
  }

  /** Ends the current round, for a day kept now (a fold, or the upkeep of a day not ended): its number. */
  private async endRound(): Promise<number> {
    const round = await this.currentRound();
    this.round = round + 1;
    return round;
  }

  /** Writes the log into the file once it holds CHECKPOINT_LOG_BYTES (DuckDB's own threshold). */
  private async checkpointIfLogIsLarge(): Promise<void> {
    let size = 0;
    try {
      size = fs.statSync(`${this.file}.wal`).size;
    } catch {
      return; // no log
    }
    if (size >= CHECKPOINT_LOG_BYTES) await this.writer.run("CHECKPOINT");
  }

  queryStat(query: StatsQuery): Promise<StatsPage> {
    return this.translated(this.readStat(query));
  }

  private async readStat(query: StatsQuery): Promise<StatsPage> {
    // A filtered query counts every day from its events (statQuerySql), but for those that
    // read the folded visits.
    const visits = readsFoldedVisits(query);
    const unfiltered = query.filters.length === 0;
    const days = unfiltered || visits ? await this.windowDays(query) : { open: [], kept: [] };
    const openDays = days.open;
    const numbers = await this.filterNumbers(query);
    const mixedVisits = visits && (await this.holdsMixedVisits(query));
    const kept = await this.keptChanges(query, days.kept);
    if (query.stat.rows === "visits") {
      const parts = await this.visitParts(query, openDays, kept);
      if (parts !== null) return this.readStatInParts(query, parts, { numbers, mixedVisits });
    }
    return this.readPage(query, statQuerySql(query, openDays, { numbers, mixedVisits, keptDays: kept }));
  }

  queryStats(batch: StatsBatch): Promise<StatsPage[]> {
    return this.translated(this.readStats(batch));
  }

  /**
   * Each query of a batch as readStat answers it, read together where they share what they
   * read. Unfiltered, in one statement when the window's days are all folded or kept
   * (readFoldedPages). Filtered, the counts of rows from one reading of the matching events
   * (aggregate-sql.ts, matchedRowsPagesSql), and the lists of visitors from the window's
   * matching pageviews (countsVisitorDays) from one table of the matching visitors' days,
   * made for the batch and dropped after it (visitorDaysTableStatements): at 10M events on
   * one core, a dashboard filtered by page==/pricing read its eight lists of visitors in
   * 352-449 ms so, against 746-874 one by one.
   */
  private async readStats(batch: StatsBatch): Promise<StatsPage[]> {
    const queries = batchQueries(batch);
    if (batch.filters.length === 0) {
      const folded = queries.length > 1 ? await this.readFoldedPages(queries) : null;
      return folded ?? Promise.all(queries.map((query) => this.readStat(query)));
    }
    const numbers = await this.filterNumbers(batch);
    const rows = queries.filter(countsMatchedRows);
    const rowPages = rows.length > 1 ? await this.readPages(rows, matchedRowsPagesSql(rows, numbers)) : null;
    const table = queries.filter(countsVisitorDays).length > 1 ? `visitor_days_${++this.batches}` : null;
    try {
      if (table !== null)
        for (const { sql, params } of visitorDaysTableStatements(batch, table, numbers))
          await this.reader.run(sql, params);
      return await Promise.all(
        queries.map((query) => {
          if (rowPages !== null && countsMatchedRows(query))
            return rowPages[rows.indexOf(query)] as StatsPage;
          if (table !== null && countsVisitorDays(query))
            return this.readPage(query, visitorDaysStatSql(query, table));
          return this.readStat(query);
        }),
      );
    } finally {
      // The reader's own tables: if it failed, they went with it.
      if (table !== null)
        for (const name of [table, `${table}_mixed`])
          await this.reader.run(`DROP TABLE IF EXISTS ${name}`).catch(() => {});
    }
  }

  /**
   * Unfiltered queries of one window, when its days are all folded, or kept with their
   * changes held: their pages in one statement (aggregate-sql.ts, foldedPagesSql), each as
   * readStat answers it alone; null for a window with days counted from their events.
   */
  private async readFoldedPages(queries: readonly StatsQuery[]): Promise<StatsPage[] | null> {
    const [first] = queries;
    if (first === undefined) return null;
    const days = await this.windowDays(first);
    const kept = await this.keptChanges(first, days.kept);
    if (!days.open.every((day) => kept.includes(day))) return null;
    return this.readPages(queries, foldedPagesSql(queries, kept));
  }

  /**
   * The pages of several queries from one statement of their rows by position (`i`, `value`,
   * `n`, `total`: aggregate-sql.ts, pagesOfCountsSql); a page past the end is read again
   * alone, for its number of values.
   */
  private async readPages(
    queries: readonly StatsQuery[],
    { sql, params }: { sql: string; params: DuckDBValue[] },
  ): Promise<StatsPage[]> {
    const pages: StatsPage[] = queries.map(() => ({ rows: [], total: 0 }));
    for (const row of (await this.reader.runAndReadAll(sql, params)).getRowObjects()) {
      const page = pages[Number(row.i)] as StatsPage;
      page.rows.push({ value: String(row.value), count: Number(row.n) });
      page.total = Number(row.total);
    }
    return Promise.all(
      pages.map((page, i) => {
        const query = queries[i] as StatsQuery;
        return page.rows.length === 0 && query.offset > 0 ? this.readStat(query) : page;
      }),
    );
  }

  /** A page of a statistic and its number of values, as statQuerySql (or summedPageSql) gives their SQL. */
  private async readPage(
    query: StatsQuery,
    { page, total }: Record<"page" | "total", { sql: string; params: DuckDBValue[]; types?: DuckDBType[] }>,
  ): Promise<StatsPage> {
    const rows = (await this.reader.runAndReadAll(page.sql, page.params, page.types)).getRowObjects();
    let count = Number(rows[0]?.total ?? 0);
    if (rows.length === 0 && query.offset > 0) {
      const counted = await this.reader.runAndReadAll(total.sql, total.params, total.types);
      count = Number(counted.getRowObjects()[0]?.total ?? 0);
    }
    return { rows: rows.map((row) => ({ value: String(row.value), count: Number(row.n) })), total: count };
  }

  /**
   * A visit statistic over a window with several open days (windowParts): each part counted
   * in a statement of its own, every value of it, then the counts summed and paged as
   * statQuerySql pages them.
   */
  private async readStatInParts(
    query: StatsQuery,
    parts: readonly WindowPart[],
    options: { numbers: (number | undefined)[]; mixedVisits: boolean },
  ): Promise<StatsPage> {
    const sums = new Map<string, number>();
    for (const part of parts) {
      const { page } = statQuerySql({ ...query, ...part.range, limit: EVERY_VALUE, offset: 0 }, part.open, {
        ...options,
        visitors: part.visitors,
      });
      for (const row of (await this.reader.runAndReadAll(page.sql, page.params)).getRowObjects()) {
        const value = String(row.value);
        sums.set(value, (sums.get(value) ?? 0) + Number(row.n));
      }
    }
    return this.readPage(query, summedPageSql(query, [...sums.keys()], [...sums.values()]));
  }

  /**
   * Has the reader hold the changes of the website's kept days `days` since their rounds, as
   * of the last write (aggregate-sql.ts, keptChangesStatements), for the statements that
   * read them: found once for all of them until the next write, 25-34 ms for a few visitors
   * written since at 10M events, against 6-11 ms for each of a dashboard's twenty statements.
   * Returns the days it holds them for: changes of more events than one statement finds the
   * visits of (foldPartEvents: an import into today) are not found, and the caller counts
   * that day from its events, as an open day, until the next upkeep round keeps it. A
   * filtered statement reading visits reads the same days from their kept visits (the
   * changed visitors' found from their events: aggregate-sql.ts, foldedWindow).
   */
  private async keptChanges(
    query: { websiteId: number; zone: string },
    days: readonly string[],
  ): Promise<string[]> {
    const held: string[] = [];
    for (const day of days) {
      const key = changeSetKey(query.websiteId, day);
      let set = this.changeSets.get(key);
      if (set?.writes !== this.writes) {
        this.changeSetVersion += 1;
        const made = { writes: this.writes, ready: this.findChanges(query, day, this.changeSetVersion) };
        made.ready.catch(() => {
          if (this.changeSets.get(key) === made) this.changeSets.delete(key);
        });
        this.changeSets.set(key, made);
        set = made;
      }
      if (await set.ready) held.push(day);
    }
    return held;
  }

  /** Stores a kept day's changes as set `version` on the reader, unless they are too many (false). */
  private async findChanges(
    { websiteId, zone }: { websiteId: number; zone: string },
    day: string,
    version: number,
  ): Promise<boolean> {
    const counted = await this.reader.runAndReadAll(
      `SELECT count(*) AS n FROM events e WHERE ${changedEventsSql(websiteId, zone, day)}`,
    );
    if (Number(counted.getRowObjects()[0]?.n ?? 0) > this.foldPartEvents) return false;
    for (const statement of keptChangesStatements(zone, day, version))
      await this.reader.run(statement, [websiteId]);
    // The day folded meanwhile (forgetKeptChanges ran before this set was stored): its rows
    // would stay until a restart.
    if (!this.changeSets.has(changeSetKey(websiteId, day)))
      await this.reader.run(
        `DELETE FROM kept_changes WHERE website_id = $1 AND day = CAST($2 AS DATE) AND version = ${version}`,
        [websiteId, day],
      );
    return true;
  }

  queryDays(query: DaysQuery): Promise<DayCounts> {
    return this.translated(this.readDays(query));
  }

  private async readDays(query: DaysQuery): Promise<DayCounts> {
    const { open: openDays, kept: keptDays } = await this.windowDays(query);
    const numbers = await this.filterNumbers(query);
    const mixedVisits = await this.holdsMixedVisits(query);
    const counts: DayCounts = Object.fromEntries(query.stats.map((stat) => [stat.name, {}]));
    const names = new Map(query.stats.map((stat) => [stat.id, stat.name]));
    // A day is in one part, or in the slices of its visitors: its counts are their sum.
    const visits = query.stats.some((stat) => stat.rows === "visits");
    const kept = await this.keptChanges(query, keptDays);
    const parts: WindowPart[] = (visits && (await this.visitParts(query, openDays, kept))) || [
      { range: query, open: [...openDays], kept },
    ];
    for (const part of parts) {
      const { sql, params } = dayCountsSql({ ...query, ...part.range }, part.open, {
        numbers,
        mixedVisits,
        visitors: part.visitors,
        keptDays: part.kept,
      });
      for (const row of (await this.reader.runAndReadAll(sql, params)).getRowObjects()) {
        const days = counts[names.get(Number(row.stat)) as string] as Record<string, number>;
        const day = String(row.day);
        days[day] = (days[day] ?? 0) + Number(row.n);
      }
    }
    return counts;
  }

  /**
   * The parts a window's visits are counted in (windowParts), when the events its statement
   * would find visits in (the open days' but the kept ones', whose changes the reader holds)
   * are more than one statement finds the visits of (foldPartEvents, as a fold does); null
   * when it is counted whole, reading the kept days' visits. Past that,
   * every open day is counted from its events, a day or a slice of its visitors at a time.
   */
  private async visitParts(
    query: Pick<StatsQuery, "websiteId" | "zone" | "from" | "to">,
    openDays: readonly string[],
    kept: readonly string[],
  ): Promise<WindowPart[] | null> {
    const fromEvents = openDays.filter((day) => !kept.includes(day));
    if (fromEvents.length === 0) return null;
    const [row] = (
      await this.reader.runAndReadAll(
        `SELECT count(*) AS n FROM events e WHERE ${visitEventsSql(query.zone, fromEvents)}`,
        [query.websiteId],
      )
    ).getRowObjects();
    if (Number(row?.n ?? 0) <= this.foldPartEvents) return null;
    const days = await this.reader.runAndReadAll(openDayEventsSql(query.zone, openDays), [query.websiteId]);
    const eventsOf = new Map(days.getRowObjects().map((day) => [String(day.day), Number(day.n)]));
    return windowParts(query, openDays, eventsOf, this.foldPartEvents);
  }

  /**
   * The days of a window whose folds are out of date, counted from the raw events instead
   * (`open`): those not folded yet, or every day for a query in a zone the days were not
   * folded in (setZone under way); and of those the days whose counts and visits are kept
   * (`kept`, visit_days, in the zone they were found in), read as folded days with what the
   * visitors written since (visitor_changes) changed. Read first: a fold committed in
   * between only moves a day from the events to the folds, which this query then still
   * counts from the events, to the same sums; a day kept again in between is read at the
   * round its statement sees (aggregate-sql.ts, keptRoundSql). One statement for both: a
   * dashboard asks before each of its twenty statements, and two took 1.9-2.2 ms a time at
   * 10M events with today open, this one 1.2-1.3. The answer is kept until the next write
   * (`writes`), so a dashboard's statements of one window ask once: a query that starts
   * after a write ends reads the window again, and one that overlaps a write is in the same
   * race as the two statements of a query already are.
   */
  private windowDays(query: Pick<StatsQuery, "websiteId" | "zone" | "from" | "to">): Promise<WindowDays> {
    if (this.windows.writes !== this.writes || this.windows.days.size >= MAX_WINDOWS_KEPT)
      this.windows = { writes: this.writes, days: new Map() };
    const { days } = this.windows;
    const key = `${query.websiteId} ${query.zone} ${query.from} ${query.to}`;
    let window = days.get(key);
    if (!window) {
      const read = this.readWindowDays(query);
      read.catch(() => {
        if (days.get(key) === read) days.delete(key);
      });
      days.set(key, read);
      window = read;
    }
    return window;
  }

  private async readWindowDays(
    query: Pick<StatsQuery, "websiteId" | "zone" | "from" | "to">,
  ): Promise<WindowDays> {
    const folded = ((await this.zones()).get(query.websiteId) ?? DEFAULT_TIME_ZONE) === query.zone;
    if (!folded) return { open: daysFrom(query.from, query.to), kept: [] };
    // Two scans of small tables, the days as DATE values (formatting them and ordering them
    // in SQL cost as much again).
    const rows = await this.reader.runAndReadAll(
      `SELECT day, false AS kept FROM event_days
       WHERE website_id = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE) AND NOT folded
       UNION ALL SELECT day, true FROM visit_days
       WHERE website_id = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)`,
      [query.websiteId, query.from, query.to],
    );
    const open: string[] = [];
    const kept = new Set<string>();
    for (const row of rows.getRowObjects()) {
      const day = String(row.day); // YYYY-MM-DD
      if (row.kept === true) kept.add(day);
      else open.push(day);
    }
    open.sort();
    return { open, kept: open.filter((day) => kept.has(day)) };
  }

  /**
   * Whether a query filtered on the visitor's attributes alone finds visitors' days with
   * mixed attributes among its window's folded visits (aggregate-sql.ts); false for others,
   * which do not ask.
   */
  private async holdsMixedVisits(
    query: Pick<StatsQuery, "websiteId" | "from" | "to" | "filters">,
  ): Promise<boolean> {
    if (!filtersVisitorAttributes(query.filters)) return false;
    const [row] = (
      await this.reader.runAndReadAll(
        `SELECT count(*) AS n FROM day_visits
         WHERE website_id = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE) AND mixed`,
        [query.websiteId, query.from, query.to],
      )
    ).getRowObjects();
    return Number(row?.n ?? 0) > 0;
  }

  /** The stored number of each filter's value that aggregate-sql.ts compares as one (numberedField). */
  private async filterNumbers(query: Pick<StatsQuery, "filters">): Promise<(number | undefined)[]> {
    const numbers: (number | undefined)[] = [];
    for (const filter of query.filters) {
      const field = numberedField(filter);
      const [row] =
        field === null
          ? []
          : (
              await this.reader.runAndReadAll("SELECT id FROM text_values WHERE field = $1 AND value = $2", [
                field,
                filter.value,
              ])
            ).getRowObjects();
      numbers.push(row === undefined ? undefined : Number(row.id));
    }
    return numbers;
  }

  queryRealtime(query: RealtimeQuery): Promise<RealtimeCounts> {
    return this.translated(this.readRealtime(query));
  }

  /**
   * The last minutes' pageviews of the website (the time bounds let DuckDB skip the row
   * groups of older events by their ts ranges), counted per minute, and the distinct
   * visitor numbers (unique per website and local day) of the last few.
   */
  private async readRealtime(query: RealtimeQuery): Promise<RealtimeCounts> {
    // Stored instants are whole seconds: from the first whole second at or after each start.
    const iso = (ms: number, round = Math.ceil) => new Date(round(ms / 1000) * 1000).toISOString();
    const result = await this.reader.runAndReadAll(
      `WITH recent AS (
         SELECT ts, visitor FROM events
         WHERE website_id = $1 AND kind = 0 AND ts >= CAST($2 AS TIMESTAMP_S) AND ts <= CAST($4 AS TIMESTAMP_S))
       SELECT CAST(epoch(time_bucket(INTERVAL 1 MINUTE, ts)) AS BIGINT) AS minute, count(*) AS n FROM recent GROUP BY minute
       UNION ALL
       SELECT NULL, count(DISTINCT visitor) FROM recent
       WHERE ts >= CAST($3 AS TIMESTAMP_S)`,
      [query.websiteId, iso(query.minutesFrom), iso(query.visitorsFrom), iso(query.until, Math.floor)],
    );
    const rows = result.getRowObjects();
    const visitors = rows.find((row) => row.minute === null);
    return {
      visitors: Number(visitors?.n ?? 0),
      minutes: rows
        .filter((row) => row.minute !== null)
        .map((row) => ({ minute: Number(row.minute) * 1000, pageviews: Number(row.n) })),
    };
  }

  /**
   * Folds every day again from the raw events, of one website or of all, a day and a
   * statistic at a time as the upkeep does: one statement over every event needed more than
   * DuckDB's memory limit at 100 million events.
   */
  rebuildAggregates(websiteId?: number): Promise<void> {
    return this.translated(this.refold(websiteId));
  }

  private async refold(websiteId?: number): Promise<void> {
    const ofWebsite = websiteId === undefined ? "" : " AND website_id = $1";
    const params = websiteId === undefined ? [] : [websiteId];
    // Rows of days event_days does not list (there should be none): a rebuild leaves what the events say.
    await this.serialised(() =>
      this.writer.run(
        `DELETE FROM daily_stats WHERE (website_id, day) NOT IN (SELECT website_id, day FROM event_days)${ofWebsite}`,
        params,
      ),
    );
    // Every visit found again from the events, not kept ones brought up to date.
    await this.serialised(() => this.writer.run(`DELETE FROM visit_days WHERE true${ofWebsite}`, params));
    for (const table of ["day_visits", "visitor_changes"]) {
      await this.serialised(() =>
        this.writer.run(
          `DELETE FROM ${table} WHERE (website_id, day) NOT IN (SELECT website_id, day FROM event_days)${ofWebsite}`,
          params,
        ),
      );
    }
    await this.foldDays(`true${ofWebsite}`, params);
  }

  /**
   * Folds the days that ended and have not been written for SETTLE_MS, then, once a day,
   * deletes the visitor ids no salt can ask for any more. The store's timer calls it; tests
   * call it directly.
   */
  upkeep(): Promise<void> {
    this.upkeepRun ??= this.runUpkeep().finally(() => {
      this.upkeepRun = null;
    });
    return this.upkeepRun;
  }

  private async runUpkeep(): Promise<void> {
    const now = this.clock.now().getTime();
    // Days up to UTC's tomorrow (a zone ahead of UTC may have ended today already), of which
    // foldDays keeps those that ended.
    await this.translated(
      this.foldDays(
        "NOT folded AND day <= CAST($1 AS DATE) AND written <= CAST($2 AS TIMESTAMP)",
        [dayString(dayNumberOf(now) + 1), new Date(now - SETTLE_MS).toISOString()],
        now,
      ),
    );
    if (this.closing) return;
    await this.translated(this.keepOpenDays(now));
    if (this.closing) return;
    await this.translated(this.serialised(() => this.pruneVisitorIds(dayNumberOf(now))));
  }

  /**
   * Keeps the open days that have not ended (a website's today) as of a round, each in a
   * transaction that ends the round: the day's counts in daily_stats and its visits in
   * day_visits, counted once as a fold counts them (the visits in VisitorSlices), then,
   * each round, brought up to date by what the visitors written since (visitor_changes)
   * changed (aggregate-sql.ts, keptDayStatements). Today's statistics then read it as a
   * folded day with those changes, instead of counting all of its events (bench/RESULTS.md,
   * "Today kept as of a round"). A day that ended is folded instead (foldDays).
   */
  private async keepOpenDays(now: number): Promise<void> {
    const zones = await this.zones();
    const days = await this.serialised(
      () =>
        this.writer.runAndReadAll(
          `SELECT d.website_id, strftime(d.day, '%Y-%m-%d') AS day,
           (SELECT max(k.round) FROM visit_days k WHERE k.website_id = d.website_id AND k.day = d.day) AS round,
           EXISTS (SELECT 1 FROM visitor_changes c WHERE c.website_id = d.website_id AND c.day = d.day) AS changed
         FROM event_days d WHERE NOT d.folded AND d.day >= CAST($1 AS DATE) ORDER BY d.day DESC, d.website_id`,
          [dayString(dayNumberOf(now) - 1)],
        ),
      false,
    );
    for (const row of days.getRowObjects()) {
      const websiteId = Number(row.website_id);
      const zone = zones.get(websiteId) ?? DEFAULT_TIME_ZONE;
      const day = String(row.day);
      const rule = zoneRule(zone);
      const number = dayNumberFromString(day);
      // Today alone: a day that ended is folded, and one to come (a clock set wrong, an import
      // of events stamped ahead) gets no traffic to keep it for.
      const start = rule.dayStart(number);
      if (start < 0 || start > now || rule.dayStart(number + 1) <= now) continue;
      const previous = row.round === null ? null : Number(row.round);
      if (previous !== null && row.changed !== true) continue;
      if (this.closing) return;
      await this.serialised(() =>
        this.inTransaction(async () => {
          const round = await this.endRound();
          const visits = await this.visitStatements(websiteId, zone, day, round, { kept: previous !== null });
          // Changes too many for one statement (an import into today) are counted again whole,
          // as a fold counts a day: their visits in VisitorSlices.
          const since = visits.whole ? null : previous;
          for (const statement of keptDayStatements(websiteId, zone, day, since, visits.statements))
            await this.writer.run(statement);
        }),
      );
    }
    // The kept days are committed, and their writes count toward a checkpoint as an insert's
    // do: left to the next insert, a log grown by them could fill a disk before one was tried.
    await this.serialised(() => this.checkpointIfLogIsLarge(), false).catch((error: unknown) => {
      this.onUpkeepError(translateDuckDbError(error, this.file));
    });
  }

  /**
   * Statements that bring one website's day's visits in day_visits up to date, to run in the
   * caller's transaction: when the day's visits are `kept`, those of the visitors written
   * since, unless their events are too many for one statement; else every visit of the day
   * (its `events`, counted if not given), a VisitorSlice at a time (`whole`).
   */
  private async visitStatements(
    websiteId: number,
    zone: string,
    day: string,
    round: number,
    { kept, events }: { kept: boolean; events?: number },
  ): Promise<{ statements: string[]; whole: boolean }> {
    const count = async (where: string) => {
      const counted = await this.writer.runAndReadAll(`SELECT count(*) AS n FROM events e WHERE ${where}`);
      return Number(counted.getRowObjects()[0]?.n ?? 0);
    };
    if (kept && (await count(changedEventsSql(websiteId, zone, day))) <= this.foldPartEvents)
      return { statements: changedVisitsStatements(websiteId, zone, day, round), whole: false };
    const dayEvents = events ?? (await count(dayEventsSql(websiteId, zone, day)));
    const parts = sliceCount(dayEvents, this.foldPartEvents);
    return { statements: dayVisitsStatements(websiteId, zone, day, round, parts), whole: true };
  }

  /**
   * Folds the days of event_days that `where` selects (with `endedBy`, only those whose local
   * day in the website's zone ended by then, ms), newest first: after a change of time zone
   * or an import of history, the days dashboards and reports read most (the last 30 days,
   * the last week or month) are fast again first, not after every older one. A day that
   * starts before 1970 is left as written: its visits' times are seconds since 1970,
   * unsigned, and no range may ask for it (day-rule.ts); an import refuses such events now,
   * and a store that took some before keeps them, unfolded, instead of failing every fold.
   */
  private async foldDays(where: string, params: (string | number)[], endedBy?: number): Promise<void> {
    const zones = await this.zones();
    const days = await this.serialised(
      () =>
        this.writer.runAndReadAll(
          `SELECT website_id, strftime(day, '%Y-%m-%d') AS day, epoch(written) AS written FROM event_days
         WHERE ${where} ORDER BY day DESC, website_id`,
          params,
        ),
      false,
    );
    for (const row of days.getRowObjects()) {
      const websiteId = Number(row.website_id);
      const zone = zones.get(websiteId) ?? DEFAULT_TIME_ZONE;
      const day = String(row.day);
      if (zoneRule(zone).dayStart(dayNumberFromString(day)) < 0) continue;
      if (endedBy !== undefined && zoneRule(zone).dayStart(dayNumberFromString(day) + 1) > endedBy) continue;
      if (this.closing) return; // the rest stay open, and are folded after the next start
      await this.foldDay(websiteId, zone, day, Number(row.written));
      await this.forgetKeptChanges(websiteId, day);
      this.onDayFolded(websiteId, day);
    }
  }

  /**
   * Drops the reader's changes of a day just folded: a statement still reading the day as
   * kept finds the fold's round, not theirs, and adds none (keptChangesReadSql).
   */
  private async forgetKeptChanges(websiteId: number, day: string): Promise<void> {
    this.changeSets.delete(changeSetKey(websiteId, day));
    await this.reader.run("DELETE FROM kept_changes WHERE website_id = $1 AND day = CAST($2 AS DATE)", [
      websiteId,
      day,
    ]);
  }

  /**
   * Folds one website's day in one transaction (aggregate-sql.ts, foldDaySql), then, for a
   * day of PAGE_ORDER_EVENTS or more, stores its events in page order in another
   * (pageOrderSql); an insert waits for one of them: about 1.1 s and 0.4-0.6 s for a day of
   * 320,000 events on one core. The day is marked folded only if no write came since
   * `written` (epoch seconds): one that did opened it again, and queries go on counting it
   * from its events until the next fold.
   */
  private async foldDay(websiteId: number, zone: string, day: string, written: number): Promise<void> {
    let events = 0;
    await this.serialised(() =>
      this.inTransaction(async () => {
        const counted = await this.writer.runAndReadAll(
          `SELECT count(*) AS n FROM events e WHERE ${dayEventsSql(websiteId, zone, day)}`,
        );
        events = Number(counted.getRowObjects()[0]?.n ?? 0);
        const kept = await this.writer.runAndReadAll(
          "SELECT count(*) AS n FROM visit_days WHERE website_id = $1 AND day = CAST($2 AS DATE)",
          [websiteId, day],
        );
        const visits = await this.visitStatements(websiteId, zone, day, await this.endRound(), {
          kept: Number(kept.getRowObjects()[0]?.n ?? 0) > 0,
          events,
        });
        for (const statement of foldDaySql(websiteId, zone, day, visits.statements))
          await this.writer.run(statement);
        await this.writer.run(
          `UPDATE event_days SET folded = true
           WHERE website_id = $1 AND day = CAST($2 AS DATE) AND epoch(written) = $3`,
          [websiteId, day, written],
        );
      }),
    );
    if (events < this.pageOrderEvents) return;
    // The day's events in page order, in a transaction of its own, so that a write waiting
    // for the store goes between the two (at 100M events a day's fold took 13.5 s, its new
    // order about 6 s). A write into the day meanwhile is stored in order with the rest.
    await this.serialised(() =>
      this.inTransaction(async () => {
        for (const statement of pageOrderSql(websiteId, zone, day)) await this.writer.run(statement);
      }),
    );
    // A checkpoint frees the blocks of the day's old rows, for the next fold to reuse
    // (without it the file grew by the events' whole size over a rebuild; 10M events: 331
    // MiB, 2,694 blocks free, against 217 MiB). The day is stored; a failed checkpoint is
    // reported, not thrown.
    await this.serialised(() => this.writer.run("CHECKPOINT"), false).catch((error: unknown) => {
      this.onUpkeepError(translateDuckDbError(error, this.file));
    });
  }

  deleteWebsite(websiteId: number): Promise<void> {
    return this.translated(
      this.serialised(async () => {
        const zones = await this.zones();
        await this.inTransaction(async () => {
          for (const table of WEBSITE_TABLES) {
            await this.writer.run(`DELETE FROM ${table} WHERE website_id = $1`, [websiteId]);
          }
        });
        zones.delete(websiteId);
      }),
    );
  }

  setZone(websiteId: number, zone: string): Promise<void> {
    return this.translated(this.serialised(() => this.changeZone(websiteId, zone)));
  }

  /**
   * Records the website's zone, then lists its stored days again as local days of that zone,
   * all open and settled: the upkeep folds them in the next rounds (at 10M events, about
   * as long as `aggregates rebuild`), and queries count them from raw events until then.
   */
  private async changeZone(websiteId: number, zone: string): Promise<void> {
    const zones = await this.zones();
    if ((zones.get(websiteId) ?? DEFAULT_TIME_ZONE) === zone) return;
    const span = (
      await this.writer.runAndReadAll(
        "SELECT epoch_ms(min(ts)) AS first, epoch_ms(max(ts)) AS last FROM events WHERE website_id = $1",
        [websiteId],
      )
    ).getRowObjects()[0];
    const settled = new Date(this.clock.now().getTime() - SETTLE_MS).toISOString();
    await this.inTransaction(async () => {
      const given = (
        await this.writer.runAndReadAll("SELECT visitors FROM event_websites WHERE website_id = $1", [
          websiteId,
        ])
      ).getRowObjects()[0]?.visitors;
      await this.writer.run("DELETE FROM event_websites WHERE website_id = $1", [websiteId]);
      await this.writer.run("INSERT INTO event_websites VALUES ($1, $2, $3)", [
        websiteId,
        zone,
        Number(given ?? 0),
      ]);
      for (const table of ["daily_stats", "day_visits", "visit_days", "visitor_changes", "event_days"]) {
        await this.writer.run(`DELETE FROM ${table} WHERE website_id = $1`, [websiteId]);
      }
      if (span?.first === null || span?.first === undefined) return;
      const time = timeSql(zone, Number(span.first), Number(span.last) + 1000);
      await this.writer.run(
        `INSERT INTO event_days SELECT website_id, CAST(${time.date("day")} AS DATE), CAST($2 AS TIMESTAMP_S), false
         FROM (SELECT DISTINCT e.website_id, ${time.day} AS day FROM events e WHERE e.website_id = $1) ORDER BY day`,
        [websiteId, settled],
      );
    });
    zones.set(websiteId, zone);
  }

  /** The websites' zones (see zoneList). */
  private zones(): Promise<Map<number, string>> {
    this.zoneList ??= this.reader
      .runAndReadAll("SELECT website_id, zone FROM event_websites WHERE zone <> $1", [DEFAULT_TIME_ZONE])
      .then(
        (result) => new Map(result.getRowObjects().map((row) => [Number(row.website_id), String(row.zone)])),
      );
    this.zoneList.catch(() => {
      this.zoneList = null; // read again next time
    });
    return this.zoneList;
  }

  async countEvents(websiteId?: number): Promise<number> {
    const [where, params] = websiteId === undefined ? ["", []] : [" WHERE website_id = $1", [websiteId]];
    const result = await this.translated(
      this.reader.runAndReadAll(`SELECT count(*) AS n FROM events${where}`, params),
    );
    return Number(result.getRowObjects()[0]?.n ?? 0);
  }

  /**
   * Streams the events a chunk at a time (DuckDB's vector size), on a connection of its own:
   * a running server's queries on the reader would end the stream. A visitor is its hash for
   * the days visitor_ids still covers, else a per-day stand-in (see event-rows.ts).
   */
  async *exportEvents(options: ExportOptions = {}): AsyncIterable<StoredEvent[]> {
    const { sql, params } = exportQuery(options);
    let connection: DuckDBConnection | null = null;
    try {
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
    await this.translated(this.serialised(() => this.writer.run("CHECKPOINT"), false));
  }

  /** Stops the upkeep, waits for the writes under way, then closes. Days still open stay open for the next start. */
  async close(): Promise<void> {
    // The upkeep first: a query still running on a connection being closed never returns.
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    await this.upkeepRun?.catch(() => undefined);
    await this.serialised(async () => undefined, false).catch(() => undefined);
    this.reader.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  private async loadNumbered(): Promise<Numbered> {
    const read = async (sql: string) => (await this.writer.runAndReadAll(sql)).getRowObjects();
    const codes = await read("SELECT DISTINCT code FROM geo_names");
    const places = await read("SELECT id, geo FROM places");
    const texts = await read("SELECT field, id, value FROM text_values");
    return {
      geoCodes: new Set(codes.map((row) => String(row.code))),
      places: new StringNumbers(places.map((row) => [String(row.geo), Number(row.id)])),
      texts: NUMBERED_TEXT.map(
        (_, field) =>
          new StringNumbers(
            texts
              .filter((row) => Number(row.field) === field)
              .map((row) => [String(row.value), Number(row.id)]),
          ),
      ),
    };
  }

  /**
   * Once a day, deletes the visitor ids of days whose salts are surely gone: days before
   * yesterday not written for three days (a salt lives 48 hours past its last use, and a
   * write follows the use; see visitor-hasher.ts). A hash whose salt is gone can never be
   * computed again, so its number would never be asked for.
   */
  private async pruneVisitorIds(today: number): Promise<void> {
    if (today <= this.prunedOn) return;
    await this.writer.run(
      `DELETE FROM visitor_ids WHERE day < CAST($1 AS DATE) AND (website_id, day) IN (
         SELECT website_id, day FROM event_days WHERE written < CAST($2 AS DATE))`,
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

  /**
   * Runs `work` after the writes queued before it. `changes`: whether it may change what a
   * statement reads (not a read of the writer's, nor a checkpoint), so that what the reader
   * found before it is found again after it: the upkeep's read and checkpoint check every 5
   * seconds made every kept day's changes found again (25-34 ms at 10M events).
   */
  private serialised<T>(work: () => Promise<T>, changes = true): Promise<T> {
    const next = this.writeQueue.then(work, work).finally(() => {
      if (changes) this.writes += 1;
    });
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

/** The events table's columns, in its order (EVENT_TYPES): the text and places already numbered. */
function eventColumns(
  batch: EventColumns,
  visitors: Uint32Array<ArrayBuffer>,
  texts: readonly Column[],
  places: Uint32Array<ArrayBuffer>,
  round: number,
): Column[] {
  const { count, flags, times } = batch;
  return [
    batch.websiteIds,
    int64Column(count, (row) => Math.floor((times[row] as number) / 1000)),
    visitors,
    flags.map(kindCodeOfFlag),
    flags.map((flag) => (isVisitFlag(flag) ? 1 : 0)),
    ...texts,
    places,
    new Uint32Array(count).fill(round),
  ];
}

/** A text column's numbers: each distinct value looked up once. */
function textNumbers(
  column: EventColumns["texts"][number],
  numbers: StringNumbers,
): Uint32Array<ArrayBuffer> {
  const numberOfCode = Uint32Array.from(column.values, (value) => numbers.numberOf(value));
  return column.codes.map((code) => numberOfCode[code] as number);
}

/** Each event's place number, numbering new city values; 0 when nothing is known of where it came from. */
function numberPlaces(batch: EventColumns, places: StringNumbers): Uint32Array<ArrayBuffer> {
  const countries = textColumn(batch, "country");
  const cities = textColumn(batch, "city");
  const numbers = new Uint32Array(batch.count);
  // Keyed by the pair of codes: a batch has few distinct places.
  const numberOfPair = new Map<number, number>();
  for (let row = 0; row < batch.count; row++) {
    const country = countries.codes[row] as number;
    const city = cities.codes[row] as number;
    const pair = country * cities.values.length + city;
    let number = numberOfPair.get(pair);
    if (number === undefined) {
      const geo = geoKey(countries.values[country] as string, cities.values[city] as string);
      number = geo === "" ? 0 : places.numberOf(geo);
      numberOfPair.set(pair, number);
    }
    numbers[row] = number;
  }
  return numbers;
}

/** `US:Boston`; `US:` when only the country is known; "" when nothing is. */
function geoKey(country: string, city: string): string {
  if (country === "") return "";
  return city !== "" ? city : `${countryCode(country)}:`;
}

/** `US` of `US:United States`. */
function countryCode(country: string): string {
  const colon = country.indexOf(":");
  return colon < 0 ? country : country.slice(0, colon);
}

/** The country and continent values of each country code in the batch not `known` yet, as the pipeline made them. */
function newGeoNames(
  batch: EventColumns,
  known: ReadonlySet<string>,
): Map<string, { country: string; continent: string }> {
  const countries = textColumn(batch, "country");
  const continents = textColumn(batch, "continent");
  const names = new Map<string, { country: string; continent: string }>();
  const seen = new Uint8Array(countries.values.length);
  for (let row = 0; row < batch.count; row++) {
    const code = countries.codes[row] as number;
    if (seen[code]) continue;
    seen[code] = 1;
    const country = countries.values[code] as string;
    if (country === "") continue;
    const key = countryCode(country);
    const continent = continents.values[continents.codes[row] as number] as string;
    if (!known.has(key) && !names.has(key)) names.set(key, { country, continent });
  }
  return names;
}
