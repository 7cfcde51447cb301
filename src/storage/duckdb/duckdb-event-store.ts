// The embedded event store: one DuckDB file in the data directory. Writes go through one
// connection, serialised; each batch is appended to a temp table (the appender is the
// fastest way into DuckDB), then moved into `events` and folded into `daily_stats` in one
// transaction (see aggregate-sql.ts). Reads use a second connection and only the aggregates.

import fs from "node:fs";
import path from "node:path";
import {
  BOOLEAN,
  type DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  type DuckDBValue,
  INTEGER,
  TIMESTAMP,
  timestampValue,
  UBIGINT,
  UTINYINT,
  VARCHAR,
} from "@duckdb/node-api";
import type { StatsPage, StatsQuery } from "../../stats/stats-query.js";
import type { EventKind, EventStore, StoredEvent } from "../ports.js";
import { batchDeltaSql, PRIOR_SQL, rebuildSql } from "./aggregate-sql.js";
import { DUCKDB_MIGRATIONS } from "./migrations.js";

const COLUMN_TYPES = [
  INTEGER,
  TIMESTAMP,
  UBIGINT,
  UTINYINT,
  BOOLEAN,
  ...Array.from({ length: 12 }, () => VARCHAR),
];
const TEXT_FIELDS = [
  "page",
  "referrer",
  "campaign",
  "browser",
  "os",
  "device",
  "resolution",
  "language",
  "country",
  "city",
  "continent",
  "event",
] as const;
const KIND_CODES: Record<EventKind, number> = { pageview: 0, event: 1 };
const KINDS: EventKind[] = ["pageview", "event"];
const CHUNK_ROWS = 2048; // DuckDB's vector size: the most rows one data chunk holds
const DAY_MS = 86_400_000;
const BATCH_DELTA_SQL = batchDeltaSql();

export interface DuckDbOptions {
  /** DuckDB's own memory ceiling, e.g. "256MB". */
  memoryLimit?: string;
  threads?: number;
}

export class DuckDbEventStore implements EventStore {
  private writeQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
  ) {}

  static async open(dataDir: string, options: DuckDbOptions = {}): Promise<DuckDbEventStore> {
    fs.mkdirSync(dataDir, { recursive: true });
    const settings: Record<string, string> = { memory_limit: options.memoryLimit ?? "256MB" };
    if (options.threads) settings.threads = String(options.threads);
    const instance = await DuckDBInstance.create(path.join(dataDir, "events.duckdb"), settings);
    return new DuckDbEventStore(instance, await instance.connect(), await instance.connect());
  }

  async migrate(): Promise<void> {
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
    });
  }

  insert(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const event of events) {
      const ms = event.ts.getTime();
      if (ms < first) first = ms;
      if (ms > last) last = ms;
    }
    const fromDay = new Date(first - (first % DAY_MS)).toISOString();
    const toDay = new Date(last - (last % DAY_MS) + DAY_MS).toISOString();
    return this.serialised(() =>
      this.inTransaction(async () => {
        await this.writer.run("CREATE TEMP TABLE IF NOT EXISTS batch AS SELECT * FROM events LIMIT 0");
        await this.writer.run("DELETE FROM batch");
        const appender = await this.writer.createAppender("batch", "main", "temp");
        for (let start = 0; start < events.length; start += CHUNK_ROWS) {
          appender.appendDataChunk(toChunk(events.slice(start, start + CHUNK_ROWS)));
        }
        appender.closeSync();
        await this.writer.run(PRIOR_SQL, [fromDay, toDay]);
        await this.writer.run("INSERT INTO events SELECT * FROM batch");
        await this.writer.run(BATCH_DELTA_SQL);
      }),
    );
  }

  async queryStat(query: StatsQuery): Promise<StatsPage> {
    const params: (string | number)[] = [query.websiteId, query.stat.id, query.from, query.to];
    let where = "website_id = $1 AND stat = $2 AND day BETWEEN CAST($3 AS DATE) AND CAST($4 AS DATE)";
    if (query.search) {
      params.push(query.search);
      where += ` AND strpos(lower(value), $${params.length}) > 0`;
    }
    const order = query.sortBy === "count" ? "n" : "value";
    const direction = query.sort === "asc" ? "ASC" : "DESC";
    const paging = params.length;
    const result = await this.reader.runAndReadAll(
      `SELECT value, CAST(sum(count) AS BIGINT) AS n, count(*) OVER () AS total
       FROM daily_stats WHERE ${where}
       GROUP BY value HAVING sum(count) > 0
       ORDER BY ${order} ${direction}, value ASC
       LIMIT $${paging + 1} OFFSET $${paging + 2}`,
      [...params, query.limit, query.offset],
    );
    const rows = result.getRowObjects();
    let total = Number(rows[0]?.total ?? 0);
    if (rows.length === 0 && query.offset > 0) {
      const counted = await this.reader.runAndReadAll(
        `SELECT count(*) AS total FROM (SELECT value FROM daily_stats WHERE ${where} GROUP BY value HAVING sum(count) > 0)`,
        params,
      );
      total = Number(counted.getRowObjects()[0]?.total ?? 0);
    }
    return { rows: rows.map((row) => ({ value: String(row.value), count: Number(row.n) })), total };
  }

  rebuildAggregates(websiteId?: number): Promise<void> {
    return this.serialised(() =>
      this.inTransaction(async () => {
        if (websiteId === undefined) {
          await this.writer.run("DELETE FROM daily_stats");
          await this.writer.run(rebuildSql(false));
        } else {
          await this.writer.run("DELETE FROM daily_stats WHERE website_id = $1", [websiteId]);
          await this.writer.run(rebuildSql(true), [websiteId]);
        }
      }),
    );
  }

  deleteWebsite(websiteId: number): Promise<void> {
    return this.serialised(() =>
      this.inTransaction(async () => {
        await this.writer.run("DELETE FROM events WHERE website_id = $1", [websiteId]);
        await this.writer.run("DELETE FROM daily_stats WHERE website_id = $1", [websiteId]);
      }),
    );
  }

  async countEvents(websiteId?: number): Promise<number> {
    const result =
      websiteId === undefined
        ? await this.reader.runAndReadAll("SELECT count(*) AS n FROM events")
        : await this.reader.runAndReadAll("SELECT count(*) AS n FROM events WHERE website_id = $1", [
            websiteId,
          ]);
    return Number(result.getRowObjects()[0]?.n ?? 0);
  }

  async listEvents(websiteId: number): Promise<StoredEvent[]> {
    const result = await this.reader.runAndReadAll(
      `SELECT website_id, epoch_ms(ts) AS ms, visitor, kind, is_visit, ${TEXT_FIELDS.join(", ")}
       FROM events WHERE website_id = $1 ORDER BY ts, page`,
      [websiteId],
    );
    return result.getRowObjects().map((row) => {
      const event = {
        websiteId: Number(row.website_id),
        ts: new Date(Number(row.ms)),
        visitor: BigInt(row.visitor as bigint),
        kind: KINDS[Number(row.kind)] ?? "pageview",
        isVisit: row.is_visit === true,
      } as StoredEvent;
      for (const field of TEXT_FIELDS) event[field] = String(row[field]);
      return event;
    });
  }

  async ping(): Promise<void> {
    await this.reader.run("SELECT 1");
  }

  async close(): Promise<void> {
    await this.writeQueue.catch(() => undefined);
    this.reader.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
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

function toChunk(events: readonly StoredEvent[]): DuckDBDataChunk {
  const columns: DuckDBValue[][] = COLUMN_TYPES.map(() => new Array(events.length));
  events.forEach((event, row) => {
    (columns[0] as DuckDBValue[])[row] = event.websiteId;
    (columns[1] as DuckDBValue[])[row] = timestampValue(BigInt(event.ts.getTime()) * 1000n);
    (columns[2] as DuckDBValue[])[row] = event.visitor;
    (columns[3] as DuckDBValue[])[row] = KIND_CODES[event.kind];
    (columns[4] as DuckDBValue[])[row] = event.isVisit;
    TEXT_FIELDS.forEach((field, i) => {
      (columns[5 + i] as DuckDBValue[])[row] = event[field];
    });
  });
  const chunk = DuckDBDataChunk.create(COLUMN_TYPES, events.length);
  chunk.setColumns(columns);
  return chunk;
}
