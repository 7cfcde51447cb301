// Reading stored events back out of the embedded store as StoredEvent values: the columns
// to select, the row mapping, and the export query. Visitors are stored as numbers unique
// per website (one per hash, i.e. per person and salt day), so a read-back visitor is the
// original hash where the store still keeps it (today and yesterday, in visitor_ids) and
// otherwise a stand-in made of the number.

import { EVENT_KINDS, EVENT_TEXT_FIELDS, type ExportOptions, type StoredEvent } from "../ports.js";

/**
 * The text fields the events table holds as numbers, in its column order: a field's
 * values are numbered in text_values under its index here (country, city and continent
 * are one number into places; see migrations.ts).
 */
export const NUMBERED_TEXT = EVENT_TEXT_FIELDS.filter(
  (field) => field !== "country" && field !== "city" && field !== "continent",
);

/** The select list toStoredEvent reads (from events_view `e`). */
const EVENT_COLUMNS = `e.website_id, epoch(e.ts) AS seconds, e.visitor, e.kind, e.is_visit, ${EVENT_TEXT_FIELDS.map((f) => `e.${f}`).join(", ")}`;

/**
 * The events matching `options`, in website and time order, with the visitor's hash where
 * visitor_ids still has it (a number is only ever given to one hash of a website).
 */
export function exportQuery(options: ExportOptions): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  /** A condition on `value`, bound as the next parameter in place of `?`. */
  const bound = (condition: string, value: string | number) => {
    params.push(value);
    where.push(condition.replace("?", `$${params.length}`));
  };
  if (options.websiteId !== undefined) bound("e.website_id = ?", options.websiteId);
  // Bounds of ts's own type, TIMESTAMP_S: DuckDB then skips the row groups outside them
  // (compared with a DATE, it casts ts for every row).
  if (options.from !== undefined) bound("e.ts >= CAST(CAST(? AS DATE) AS TIMESTAMP_S)", options.from);
  if (options.to !== undefined)
    bound("e.ts < CAST(CAST(? AS DATE) + INTERVAL 1 DAY AS TIMESTAMP_S)", options.to);
  return {
    sql: `SELECT ${EVENT_COLUMNS}, v.hash AS hash
      FROM events_view e LEFT JOIN visitor_ids v
        ON v.website_id = e.website_id AND v.visitor = e.visitor
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY e.website_id, e.ts, e.seq`,
    params,
  };
}

/** The high bits of a stand-in visitor: apart from the small numbers, as a hash would be. */
const STAND_IN = 0xffffffffn << 32n;

/**
 * A row selected with EVENT_COLUMNS as a StoredEvent. Without a known hash the visitor is a
 * stand-in made of its number: distinct numbers stay distinct, so every unique-visitor
 * statistic comes out the same wherever the events are inserted again.
 */
export function toStoredEvent(row: Record<string, unknown>): StoredEvent {
  const seconds = Number(row.seconds);
  const hash = row.hash;
  const event = {
    websiteId: Number(row.website_id),
    ts: new Date(seconds * 1000),
    visitor:
      hash === null || hash === undefined ? STAND_IN | BigInt(Number(row.visitor)) : BigInt(hash as bigint),
    kind: EVENT_KINDS[Number(row.kind)] ?? "pageview",
    isVisit: row.is_visit === true,
  } as StoredEvent;
  for (const field of EVENT_TEXT_FIELDS) event[field] = String(row[field]);
  return event;
}
