// Folds closed days into plain unique-visitor and visit counts on each node
// (visitor_counts_local), with the catalog's one SELECT over the node's raw events, so
// queries read a few counts per day instead of every visitor of the range. A fold is
// current while it counted as many pageviews as its day holds, so an insert into a folded
// day reopens it by itself.
//
// Only a pageview reopens a fold: a custom event or an engagement imported later into a
// folded day, without a pageview, changes its visits (their ends) but not its pageviews,
// and is counted in them once a pageview reopens the day, or after `aggregates rebuild`.
// Telling exactly would need the day's events of every kind, which row_stats does not hold
// (engagements count in no row statistic) and its view cannot be changed without a
// migration and a rebuild; filtered queries count raw events and are always exact.

import { randomBytes } from "node:crypto";
import type { Clock } from "../../clock.js";
import {
  COUNT_VISITORS,
  FOLD_MARKER,
  onDays,
  PAGEVIEWS_PER_DAY,
  statSelect,
  VISIT_STATS,
  VISITOR_STATS,
} from "./aggregate-sql.js";
import type { ClickHouseNodes, NodeRunner } from "./clickhouse-nodes.js";
import { type Sql, sql, sqlIdentifier, sqlJoin } from "./sql-escape.js";
import { visitSelect } from "./visit-sql.js";
import {
  foldLocalDay,
  staleLocalDays,
  unreadZoneFoldsSql,
  type ZonedWebsite,
  zonedWebsitesSql,
} from "./zone-folds.js";

/**
 * A round every 10 s folds the days closed and left unchanged since the previous round:
 * yesterday shortly after midnight, an imported past day 10-20 s after its last batch,
 * never a day over and over while an import is still filling it.
 */
export const FOLD_EVERY_MS = 10_000;
/** Pageviews folded by one INSERT: bounds its memory (about 100 MB on 18.16) and its time (about 1 s). */
const BATCH_PAGEVIEWS = 1_000_000;
/** A fold replaced by a newer one is deleted once that one is 10 minutes old: no query still reads it. */
const SUPERSEDED_AFTER_S = 600;
/**
 * One INSERT is one block, hence one part per month, so a query sees all of a day's fold or
 * none of it; a batch stays far below this many rows.
 */
const ONE_PART = {
  min_insert_block_size_rows: "1000000000000",
  min_insert_block_size_bytes: "1000000000000",
};

interface StaleDay {
  website_id: number;
  day: string;
  pageviews: string;
}

/**
 * On one node: closed days with pageviews whose latest fold is missing or stale, oldest
 * first; not of websites in another zone, whose queries read their local days' folds.
 */
export function staleDaysSql(db: Sql, today: string): Sql {
  const days = sql`SELECT website_id, day, sum(hits) AS pageviews FROM ${db}.row_stats_local
    WHERE stat = ${PAGEVIEWS_PER_DAY.id} AND day < toDate(${today})
      AND website_id NOT IN (SELECT website_id FROM (${zonedWebsitesSql(db)}))
    GROUP BY website_id, day`;
  const folds = sql`SELECT website_id, day, sum(pageviews) FROM ${db}.visitor_counts_local
    WHERE stat = ${FOLD_MARKER} GROUP BY website_id, day, fold`;
  return sql`SELECT website_id, toString(day) AS day, toString(pageviews) AS pageviews FROM (
      SELECT * FROM (${days}) WHERE (website_id, day, pageviews) NOT IN (${folds}) ORDER BY day, website_id
    )`;
}

function foldSql(db: Sql, days: readonly StaleDay[]): Sql {
  const wanted = days.map((day) => sql`(${day.website_id}, toDate(${day.day}))`);
  const websites = [...new Set(days.map((day) => day.website_id))].map((id) => sql`${id}`);
  const where = sql`website_id IN (${sqlJoin(websites, ", ")}) AND ${onDays(days.map((day) => day.day))}
    AND (website_id, day) IN (${sqlJoin(wanted, ", ")})`;
  const batch = randomBytes(8).readBigUInt64BE();
  const events = sql`${db}.events_local`;
  // Visits go in the same INSERT (one part: a query sees all of the fold or none), their
  // counts as `visitors`; only the marker statistic's pageviews are ever read.
  return sql`INSERT INTO ${db}.visitor_counts_local
      (website_id, stat, day, value, visitors, pageviews, fold, folded_at)
    SELECT website_id, stat, day, value, visitors, pageviews, cityHash64(${batch}, website_id, day), now()
    FROM (
      SELECT website_id, stat, day, value, visitors, pageviews
      FROM (${statSelect(VISITOR_STATS, COUNT_VISITORS, events, where)})
      UNION ALL
      SELECT website_id, stat, day, value, visitors, toUInt64(0) AS pageviews
      FROM (${visitSelect(VISIT_STATS, sql`visitors`, events, where)})
    )`;
}

/**
 * On one node: folds that a newer fold of their day replaced at least SUPERSEDED_AFTER_S
 * ago, unless an earlier delete is still running (it may be deleting them).
 */
function supersededSql(db: Sql): Sql {
  const folds = sql`SELECT website_id, day, fold, max(folded_at) AS at FROM ${db}.visitor_counts_local
    WHERE stat = ${FOLD_MARKER} GROUP BY website_id, day, fold`;
  return sql`SELECT toString(fold) AS fold FROM (${folds}) AS each_fold ALL INNER JOIN (
      SELECT website_id, day, max(at) AS newest FROM (${folds}) GROUP BY website_id, day
    ) AS latest USING (website_id, day) WHERE at < newest AND newest < now() - ${SUPERSEDED_AFTER_S}
      AND (SELECT count() FROM system.mutations
        WHERE database = ${db.text} AND table = 'visitor_counts_local' AND is_done = 0) = 0`;
}

/** Splits days into INSERTs of about BATCH_PAGEVIEWS pageviews each (a bigger day alone). */
function batches(days: readonly StaleDay[]): StaleDay[][] {
  const result: StaleDay[][] = [];
  let pageviews = Number.POSITIVE_INFINITY;
  for (const day of days) {
    if (pageviews + Number(day.pageviews) > BATCH_PAGEVIEWS) {
      result.push([]);
      pageviews = 0;
    }
    result.at(-1)?.push(day);
    pageviews += Number(day.pageviews);
  }
  return result;
}

export class DayFolder {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<unknown> | null = null;
  private stopped = false;
  /** Stale days of the previous round, with their pageviews then, by node, website and day. */
  private seen = new Map<string, string>();

  constructor(
    private readonly nodes: ClickHouseNodes,
    private readonly clock: Clock,
    /** Runs a fold between the store's other writes (never beside a rebuild or a delete). */
    private readonly serialised: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  /** Folds settled days every FOLD_EVERY_MS until stop(); a failed round is reported and retried. */
  start(onError: (error: unknown) => void): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      this.round ??= this.fold(true)
        .catch(onError)
        .finally(() => {
          this.round = null;
        });
    }, FOLD_EVERY_MS);
    this.timer.unref();
  }

  /** Stops the rounds; waits for the running one to finish its current statement. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
  }

  /**
   * On every node, folds the closed days whose fold is missing or stale (with `settledOnly`,
   * only those already stale with the same pageviews last round), then deletes long
   * superseded folds. Returns how many days it folded.
   */
  async fold(settledOnly = false): Promise<number> {
    const db = this.nodes.database;
    const now = this.clock.now().getTime();
    const today = new Date(now).toISOString().slice(0, 10);
    const seen = new Map<string, string>();
    let folded = 0;
    await this.nodes.onEveryNode(async (node: NodeRunner, index) => {
      const stale = this.stopped ? [] : await node.query<StaleDay>(staleDaysSql(db, today));
      const due = stale.filter((day) => {
        const key = `${index} ${day.website_id} ${day.day}`;
        seen.set(key, day.pageviews);
        return !settledOnly || this.seen.get(key) === day.pageviews;
      });
      for (const batch of batches(due)) {
        if (this.stopped) return;
        await this.serialised(() => node.command(foldSql(db, batch), ONE_PART));
        folded += batch.length;
      }
      // The local days of websites in other zones (zone-folds.ts), settled the same way.
      const zoned = this.stopped
        ? []
        : await node.query<{ website_id: number; zone: string }>(zonedWebsitesSql(db));
      for (const row of zoned) {
        const website: ZonedWebsite = { websiteId: Number(row.website_id), zone: String(row.zone) };
        for (const day of await staleLocalDays(node, db, website, now)) {
          const key = `${index} ${day.websiteId} ${day.zone} ${day.day}`;
          seen.set(key, String(day.signature));
          if (settledOnly && this.seen.get(key) !== String(day.signature)) continue;
          if (this.stopped) return;
          await this.serialised(() => foldLocalDay(node, db, day));
          folded += 1;
        }
      }
      await this.deleteFolds(node, "visitor_counts_local", supersededSql(db));
      await this.deleteFolds(node, "zone_counts_local", unreadZoneFoldsSql(db, SUPERSEDED_AFTER_S));
    });
    this.seen = seen;
    return folded;
  }

  /** Deletes from `table` the folds `unread` lists, unless an earlier delete there is still running. */
  private async deleteFolds(node: NodeRunner, table: string, unread: Sql): Promise<void> {
    if (this.stopped) return;
    const listed = await node.query<{ fold: string }>(unread);
    if (listed.length === 0) return;
    const db = this.nodes.database;
    const pending = await node.query<{ n: string }>(
      sql`SELECT count() AS n FROM system.mutations WHERE database = ${db.text} AND table = ${table} AND is_done = 0`,
    );
    if (Number(pending[0]?.n ?? 0) > 0) return;
    const folds = sqlJoin(
      listed.map((row) => sql`${BigInt(row.fold)}`),
      ", ",
    );
    await node.command(sql`ALTER TABLE ${db}.${sqlIdentifier(table)} DELETE WHERE fold IN (${folds})`);
  }
}
