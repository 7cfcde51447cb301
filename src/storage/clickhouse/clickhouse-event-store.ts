// The ClickHouse event store: one server, or a cluster of shards behind Distributed tables.
// A batch is one INSERT of its events; the row view sums row_stats from each inserted block,
// and a DayFolder folds closed days' unique visitors and visits (day-folds.ts). Statistics
// are read from those, and from the raw events of the days still open.

import { type Clock, systemClock } from "../../clock.js";
import { ConfigError } from "../../config.js";
import {
  type DayCounts,
  type DaysQuery,
  daysOneByOne,
  type RealtimeCounts,
  type RealtimeQuery,
  type StatsBatch,
  type StatsPage,
  type StatsQuery,
  statsOneByOne,
} from "../../stats/stats-query.js";
import { DEFAULT_TIME_ZONE } from "../../stats/time-zone.js";
import { isVisitFlag, kindCodeOfFlag } from "../event-columns.js";
import {
  EVENT_KINDS,
  EVENT_TEXT_FIELDS,
  type EventColumns,
  type EventStore,
  type ExportOptions,
  type StoredEvent,
} from "../ports.js";
import { COUNT_ROWS, isFolded, ROW_STATS, statSelect } from "./aggregate-sql.js";
import { ClickHouseNodes, type ClickHouseTarget, type NodeRunner } from "./clickhouse-nodes.js";
import { DayFolder } from "./day-folds.js";
import { CLICKHOUSE_MIGRATIONS, distributedTables } from "./migrations.js";
import { type Sql, sql, sqlIdentifier, sqlJoin, tsvValue } from "./sql-escape.js";
import {
  compileRowStat,
  countsUtcDays,
  type DayPlan,
  filteredCountsSql,
  filteredDaysSql,
  type NodeCounts,
  type NodeStatCounts,
  pageOfCounts,
  valueConditions,
  visitorCountsSql,
  visitorPlanSql,
} from "./stat-sql.js";
import { setZoneSql, zoneCountsSql } from "./zone-folds.js";

const LOCAL_TABLES = [
  "events_local",
  "row_stats_local",
  "visitor_counts_local",
  "zone_counts_local",
  "website_zones_local",
] as const;
const MUTATION_POLL_MS = 50;
const MUTATION_TIMEOUT_MS = 300_000;
/** A node that does not answer `SELECT 1` within this is down, for /healthz. */
const PING_TIMEOUT_MS = 5_000;

/** A replica of the cluster as system.clusters lists it (the port is the native one). */
interface ClusterReplica {
  shard_num: number;
  host_name: string;
  port: number;
  is_local: number;
}

const hostPort = (replica: ClusterReplica) => `${replica.host_name}:${replica.port}`;

/** The events table's columns in the order insert() writes them. */
const EVENT_COLUMNS = ["website_id", "ts", "day", "visitor", "kind", "is_visit", ...EVENT_TEXT_FIELDS];

export class ClickHouseEventStore implements EventStore {
  private readonly nodes: ClickHouseNodes;
  private writeQueue: Promise<unknown> = Promise.resolve();
  private readonly db: Sql;
  /** Folds closed days: on a timer in a server (folder.start); commands leave it to the server. */
  readonly folder: DayFolder;

  /** `clock` says which days are closed. */
  constructor(target: ClickHouseTarget, options: { clock?: Clock } = {}) {
    this.nodes = new ClickHouseNodes(target);
    this.db = this.nodes.database;
    this.folder = new DayFolder(this.nodes, options.clock ?? systemClock, (work) => this.serialised(work));
  }

  /** Creates the database and applies the migrations on every node, then the Distributed tables. */
  migrate(): Promise<void> {
    return this.serialised(async () => {
      await this.checkNodes();
      await this.nodes.onEveryNode(async (node) => {
        await node.command(sql`CREATE DATABASE IF NOT EXISTS ${this.db}`);
        await node.command(
          sql`CREATE TABLE IF NOT EXISTS ${this.db}.schema_migrations (version UInt32, name String) ENGINE = TinyLog`,
        );
        const applied = await node.query<{ version: number }>(
          sql`SELECT version FROM ${this.db}.schema_migrations`,
        );
        const done = new Set(applied.map((row) => Number(row.version)));
        for (const migration of CLICKHOUSE_MIGRATIONS) {
          if (done.has(migration.version)) continue;
          for (const statement of migration.statements(this.db)) await node.command(statement);
          await node.command(
            sql`INSERT INTO ${this.db}.schema_migrations VALUES (${migration.version}, ${migration.name})`,
          );
        }
        if (this.nodes.cluster) {
          for (const statement of distributedTables(this.db, this.nodes.cluster))
            await node.command(statement);
        }
      });
    });
  }

  insert(batch: EventColumns): Promise<void> {
    if (batch.count === 0) return Promise.resolve();
    const { websiteIds, times, visitors, flags } = batch;
    // Each distinct text escaped once.
    const texts = batch.texts.map((column) => ({ values: column.values.map(tsvValue), codes: column.codes }));
    let rows = "";
    for (let row = 0; row < batch.count; row++) {
      const ms = times[row] as number;
      const flag = flags[row] as number;
      rows += `${websiteIds[row]}\t${Math.floor(ms / 1000)}\t${new Date(ms).toISOString().slice(0, 10)}\t${visitors[row]}\t${kindCodeOfFlag(flag)}\t${isVisitFlag(flag) ? 1 : 0}`;
      for (const text of texts) rows += `\t${text.values[text.codes[row] as number]}`;
      rows += "\n";
    }
    // One INSERT, acknowledged only once stored: synchronously on every shard it touches.
    return this.serialised(() =>
      this.nodes.insert(
        this.table("events"),
        EVENT_COLUMNS,
        rows,
        this.nodes.cluster ? { insert_distributed_sync: 1 } : {},
      ),
    );
  }

  async queryStat(query: StatsQuery): Promise<StatsPage> {
    if (query.filters.length === 0 && !countsUtcDays(query)) {
      // A website in another zone: its local days' folds, or its raw events (zone-folds.ts).
      const counts = await this.nodes.onEachNode(async (node) => {
        const counting = await zoneCountsSql(node, this.db, query, valueConditions(query));
        return counting ? node.query<NodeCounts>(counting) : [];
      });
      return pageOfCounts(counts.flat(), query);
    }
    if (query.filters.length > 0) {
      const counts = await this.nodes.onEachNode((node) =>
        node.query<NodeCounts>(filteredCountsSql(query, this.db)),
      );
      return pageOfCounts(counts.flat(), query);
    }
    if (isFolded(query.stat)) {
      // Each node plans its days, then counts with that plan: folds are only ever added (a
      // replaced one is deleted 10 minutes later), so the plan still holds, with no lock.
      const counts = await this.nodes.onEachNode(async (node) => {
        const plan = await node.query<DayPlan>(visitorPlanSql(query, this.db));
        const counting = visitorCountsSql(query, this.db, plan);
        return counting ? node.query<NodeCounts>(counting) : [];
      });
      return pageOfCounts(counts.flat(), query);
    }
    const compiled = compileRowStat(query, this.table("row_stats"));
    const [rows, totals] = await Promise.all([
      this.nodes.query<{ value: string; n: string }>(compiled.page),
      this.nodes.query<{ total: string }>(compiled.total),
    ]);
    return {
      rows: rows.map((row) => ({ value: row.value, count: Number(row.n) })),
      total: Number(totals[0]?.total ?? 0),
    };
  }

  /**
   * On every node, empties the row aggregates and the folds (of one website or all) and
   * refills the row aggregates from its events; then folds the closed days again.
   */
  async rebuildAggregates(websiteId?: number): Promise<void> {
    await this.serialised(() =>
      this.nodes.onEveryNode(async (node) => {
        for (const table of ["row_stats_local", "visitor_counts_local", "zone_counts_local"]) {
          if (websiteId === undefined)
            await node.command(sql`TRUNCATE TABLE ${this.db}.${sqlIdentifier(table)}`);
          else await this.deleteRows(node, sqlIdentifier(table), websiteId);
        }
        const where = websiteId === undefined ? undefined : sql`website_id = ${websiteId}`;
        await node.command(
          sql`INSERT INTO ${this.db}.row_stats_local ${statSelect(ROW_STATS, COUNT_ROWS, sql`${this.db}.events_local`, where)}`,
        );
      }),
    );
    await this.folder.fold();
  }

  /**
   * Records the zone on every node: their folders fold the website's closed local days in
   * it from the next round (zone-folds.ts); queries in it count raw events until then. Folds
   * of the zone before are deleted 10 minutes later.
   */
  setZone(websiteId: number, zone: string): Promise<void> {
    const version = Date.now();
    return this.serialised(() =>
      this.nodes.onEveryNode(async (node) => {
        // Each server start tells every zone again: written only when it changes.
        const known = await node.query<{ zone: string }>(
          sql`SELECT argMax(zone, version) AS zone FROM ${this.db}.website_zones_local WHERE website_id = ${websiteId}`,
        );
        if ((known[0]?.zone || DEFAULT_TIME_ZONE) !== zone) {
          await node.command(setZoneSql(this.db, websiteId, zone, version));
        }
      }),
    );
  }

  /** Deletes the website's events and aggregates on every node and waits until the deletes are done. */
  deleteWebsite(websiteId: number): Promise<void> {
    return this.serialised(() =>
      this.nodes.onEveryNode(async (node) => {
        for (const table of LOCAL_TABLES) await this.deleteRows(node, sqlIdentifier(table), websiteId);
      }),
    );
  }

  /** Each on its own, all at once: a query mostly waits on the nodes. */
  queryStats(batch: StatsBatch): Promise<StatsPage[]> {
    return statsOneByOne(batch, (query) => this.queryStat(query));
  }

  /**
   * Filtered, in one query on each node (filteredDaysSql); unfiltered, each statistic from
   * its folds on its own (a few milliseconds each).
   */
  async queryDays(query: DaysQuery): Promise<DayCounts> {
    if (query.filters.length === 0) return daysOneByOne(query, (one) => this.queryStat(one));
    const nodes = await this.nodes.onEachNode((node) =>
      node.query<NodeStatCounts>(filteredDaysSql(query, this.db)),
    );
    const names = new Map(query.stats.map((stat) => [stat.id, stat.name]));
    const counts: DayCounts = Object.fromEntries(query.stats.map((stat) => [stat.name, {}]));
    for (const { stat_list: stats, value_list: days, count_list: added } of nodes.flat()) {
      for (const [i, id] of stats.entries()) {
        const byDay = counts[names.get(Number(id)) as string] as Record<string, number>;
        const day = days[i] as string;
        byDay[day] = (byDay[day] ?? 0) + (added[i] ?? 0);
      }
    }
    return counts;
  }

  /** The last minutes' pageviews: the primary key (website, ts) reads only their granules. */
  async queryRealtime(query: RealtimeQuery): Promise<RealtimeCounts> {
    const seconds = (ms: number, round: (n: number) => number) => round(ms / 1000);
    const pageviews = sql`website_id = ${query.websiteId} AND kind = 0 AND ts <= toDateTime(${seconds(query.until, Math.floor)})`;
    const [minutes, visitors] = await Promise.all([
      this.nodes.query<{ minute: string; n: string }>(
        sql`SELECT toUInt64(toStartOfMinute(ts)) AS minute, count() AS n FROM ${this.table("events")}
          WHERE ${pageviews} AND ts >= toDateTime(${seconds(query.minutesFrom, Math.floor)}) GROUP BY minute`,
      ),
      this.nodes.query<{ n: string }>(
        sql`SELECT uniqExact(day, visitor) AS n FROM ${this.table("events")}
          WHERE ${pageviews} AND ts >= toDateTime(${seconds(query.visitorsFrom, Math.ceil)})`,
      ),
    ]);
    return {
      visitors: Number(visitors[0]?.n ?? 0),
      minutes: minutes.map((row) => ({ minute: Number(row.minute) * 1000, pageviews: Number(row.n) })),
    };
  }

  async countEvents(websiteId?: number): Promise<number> {
    const where = websiteId === undefined ? sql`` : sql`WHERE website_id = ${websiteId}`;
    const rows = await this.nodes.query<{ n: string }>(
      sql`SELECT count() AS n FROM ${this.table("events")} ${where}`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** One website, one UTC day at a time: memory stays bounded by a day's events. */
  async *exportEvents(options: ExportOptions = {}): AsyncIterable<StoredEvent[]> {
    const events = this.table("events");
    const websiteIds =
      options.websiteId !== undefined
        ? [options.websiteId]
        : (
            await this.nodes.query<{ website_id: number }>(
              sql`SELECT DISTINCT website_id FROM ${events} ORDER BY website_id`,
            )
          ).map((row) => Number(row.website_id));
    for (const websiteId of websiteIds) {
      let where = sql`website_id = ${websiteId}`;
      if (options.from) where = sql`${where} AND toDate(ts) >= toDate(${options.from})`;
      if (options.to) where = sql`${where} AND toDate(ts) <= toDate(${options.to})`;
      const days = await this.nodes.query<{ day: string }>(
        sql`SELECT DISTINCT toString(toDate(ts)) AS day FROM ${events} WHERE ${where} ORDER BY day`,
      );
      for (const { day } of days) {
        const batch = await this.readEvents(sql`website_id = ${websiteId} AND toDate(ts) = toDate(${day})`);
        if (batch.length > 0) yield batch;
      }
    }
  }

  private async readEvents(where: Sql): Promise<StoredEvent[]> {
    const rows = await this.nodes.query<Record<string, string | number>>(
      sql`SELECT website_id, toUInt32(ts) AS seconds, toString(visitor) AS visitor, kind, is_visit,
          ${sqlJoin(EVENT_TEXT_FIELDS.map(sqlIdentifier), ", ")}
        FROM ${this.table("events")} WHERE ${where}
        ORDER BY ts, kind, visitor, page, event`,
    );
    return rows.map((row) => {
      const event = {
        websiteId: Number(row.website_id),
        ts: new Date(Number(row.seconds) * 1000),
        visitor: BigInt(row.visitor as string),
        kind: EVENT_KINDS[Number(row.kind)] ?? "pageview",
        isVisit: Number(row.is_visit) === 1,
      } as StoredEvent;
      for (const field of EVENT_TEXT_FIELDS) event[field] = String(row[field]);
      return event;
    });
  }

  /** Resolves when every node answers, each within 5 seconds (a health check must not hang on a stalled node). */
  async ping(): Promise<void> {
    await this.nodes.onEachNode((node) =>
      node.query(sql`SELECT 1 AS ok`, {}, { timeoutMs: PING_TIMEOUT_MS }),
    );
  }

  async close(): Promise<void> {
    await this.folder.stop();
    await this.writeQueue.catch(() => undefined);
    await this.nodes.close();
  }

  /** The table queries and inserts go through: the Distributed one on a cluster, else the local one. */
  private table(name: string): Sql {
    return sql`${this.db}.${sqlIdentifier(this.nodes.cluster ? name : `${name}_local`)}`;
  }

  /**
   * Refuses (before anything is created) URLs that are not one node of every shard of the
   * cluster, each shard once, as every node reports the cluster: the Distributed tables
   * write to and read from every shard, while migrate, folds and deletes reach the listed
   * nodes alone, so a shard left out has no tables and one listed twice is folded twice.
   * remote_servers names nodes by their native port, not the HTTP one listed, so each node
   * says which of them it is (is_local, which 18.16 has too).
   */
  async checkNodes(): Promise<void> {
    const cluster = this.nodes.cluster;
    if (!cluster) return;
    const views = await this.nodes.onEachNode(async (node) => ({
      url: node.url,
      replicas: await node.query<ClusterReplica>(
        sql`SELECT shard_num, host_name, port, is_local FROM system.clusters WHERE cluster = ${cluster.text}`,
      ),
    }));
    const listed = new Map<number, string>();
    for (const { url, replicas } of views) {
      if (replicas.length === 0) {
        throw new ConfigError(
          `ClickHouse at ${url} has no cluster ${cluster.text} in its remote_servers (ANALYTICS_CLICKHOUSE_CLUSTER)`,
        );
      }
      const own = replicas.find((replica) => Number(replica.is_local) === 1);
      if (!own) {
        throw new ConfigError(
          `ANALYTICS_CLICKHOUSE_URL lists ClickHouse at ${url}, which is no node of cluster ${cluster.text} (${replicas.map(hostPort).join(", ")})`,
        );
      }
      const shard = Number(own.shard_num);
      const before = listed.get(shard);
      if (before !== undefined) {
        throw new ConfigError(
          `ANALYTICS_CLICKHOUSE_URL lists shard ${shard} of cluster ${cluster.text} twice: ${before} and ${url}`,
        );
      }
      listed.set(shard, url);
    }
    const left = (views[0]?.replicas ?? []).filter((replica) => !listed.has(Number(replica.shard_num)));
    const first = left[0];
    if (first) {
      const shard = Number(first.shard_num);
      const nodes = left.filter((replica) => Number(replica.shard_num) === shard).map(hostPort);
      throw new ConfigError(
        `ANALYTICS_CLICKHOUSE_URL lists no node of shard ${shard} of cluster ${cluster.text} (${nodes.join(", ")}): it must list the HTTP URL of every node of the cluster`,
      );
    }
  }

  /**
   * Deletes a website's rows from a local table and waits for the mutation: ClickHouse runs
   * ALTER ... DELETE in the background (18.16 cannot wait for it), and the caller's numbers
   * must be gone when the call returns.
   */
  private async deleteRows(node: NodeRunner, table: Sql, websiteId: number): Promise<void> {
    await node.command(sql`ALTER TABLE ${this.db}.${table} DELETE WHERE website_id = ${websiteId}`);
    const deadline = Date.now() + MUTATION_TIMEOUT_MS;
    for (;;) {
      const pending = await node.query<{ n: string }>(
        sql`SELECT count() AS n FROM system.mutations
          WHERE database = ${this.db.text} AND table = ${table.text} AND is_done = 0`,
      );
      if (Number(pending[0]?.n ?? 0) === 0) return;
      if (Date.now() > deadline)
        throw new Error(`ClickHouse at ${node.url}: a delete from ${table.text} did not finish`);
      await new Promise((resolve) => setTimeout(resolve, MUTATION_POLL_MS));
    }
  }

  /** Runs write work (inserts, rebuilds, deletes) one at a time, so a rebuild never sees half a batch. */
  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(work, work);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }
}
