// Gives each event of a batch its visitor's number on its website, as the events table
// stores it (numbers in time order pack into a few bits; a 64-bit hash would take 8 bytes an
// event): the number visitor_ids holds for the hash on the event's local day (the salt's day,
// so a hash is only ever looked up on one), else the next ones after event_websites.visitors,
// in order of first appearance. Numbers are unique per website, so distinct numbers are
// distinct visitor-days over any grouping of days (a local day spans two UTC days). The
// store's tables hold all of it; this side holds one batch, so memory does not grow with the
// visitors.

import type { DuckDBConnection } from "@duckdb/node-api";
import { DATE, INTEGER, UBIGINT, UINTEGER } from "@duckdb/node-api";
import type { EventColumns } from "../ports.js";
import { appendColumns } from "./column-appender.js";

/**
 * The temporary table a batch's distinct visitors are matched in (one per connection), made
 * anew for each batch: DELETE would leave the memory of every batch's rows in use (54 MB
 * after 3 million events).
 */
export const BATCH_VISITORS_SQL = `CREATE OR REPLACE TEMP TABLE batch_visitors (
  website_id INTEGER NOT NULL, day DATE NOT NULL, hash UBIGINT NOT NULL, seq UINTEGER NOT NULL)`;

/**
 * Per distinct (website, day, hash), in `seq` order: the number it already has, the numbers
 * its website has given (NULL: the website has no row yet), and its rank among the
 * website's new hashes of the batch.
 */
const MATCH_SQL = `SELECT b.seq, k.visitor AS known, w.visitors AS given,
    row_number() OVER (PARTITION BY b.website_id, k.visitor IS NULL ORDER BY b.seq) AS nth
  FROM batch_visitors b
    LEFT JOIN visitor_ids k ON k.website_id = b.website_id AND k.day = b.day AND k.hash = b.hash
    LEFT JOIN event_websites w ON w.website_id = b.website_id
  ORDER BY b.seq`;

export interface NumberedBatch {
  /** Per event, its visitor number. */
  visitors: Uint32Array<ArrayBuffer>;
  /** Hashes numbered by this batch, to append to visitor_ids (website, day, hash, number, written). */
  newIds: {
    websiteIds: Int32Array<ArrayBuffer>;
    days: Int32Array<ArrayBuffer>;
    hashes: BigUint64Array<ArrayBuffer>;
    numbers: Uint32Array<ArrayBuffer>;
  };
  /** The batch's distinct visitors of each (website, local day), numbered: what visitor_changes lists. */
  visitorDays: {
    websiteIds: Int32Array<ArrayBuffer>;
    days: Int32Array<ArrayBuffer>;
    numbers: Uint32Array<ArrayBuffer>;
  };
  /** Per website of the batch, the numbers given once the batch is stored, and whether it had a row. */
  websites: { websiteId: number; visitors: number; known: boolean }[];
  /** The batch's (website, local day) pairs. */
  days: { websiteId: number; day: number }[];
}

/**
 * Numbers the batch's visitors on `connection`, inside the caller's transaction (the batch
 * and its new numbers must be committed together); `dayOf` gives an event's local day
 * (days since 1970-01-01) in its website's zone. Writes nothing but the temporary table.
 */
export async function numberVisitors(
  connection: DuckDBConnection,
  batch: EventColumns,
  dayOf: (websiteId: number, ms: number) => number,
): Promise<NumberedBatch> {
  // Distinct (website, day, hash) of the batch, and each event's place among them.
  const slotOf = new Map<number, Map<bigint, number>>(); // key: website * 2^20 + day
  const slots = new Uint32Array(batch.count);
  const websiteIds: number[] = [];
  const dayNumbers: number[] = [];
  const hashes: bigint[] = [];
  const days: { websiteId: number; day: number }[] = [];
  for (let index = 0; index < batch.count; index++) {
    const websiteId = batch.websiteIds[index] as number;
    const visitor = batch.visitors[index] as bigint;
    const day = dayOf(websiteId, batch.times[index] as number);
    const key = websiteId * 1_048_576 + day;
    let group = slotOf.get(key);
    if (!group) {
      group = new Map();
      slotOf.set(key, group);
      days.push({ websiteId, day });
    }
    let slot = group.get(visitor);
    if (slot === undefined) {
      slot = hashes.length;
      group.set(visitor, slot);
      websiteIds.push(websiteId);
      dayNumbers.push(day);
      hashes.push(visitor);
    }
    slots[index] = slot;
  }
  const websiteColumn = Int32Array.from(websiteIds);
  const dayColumn = Int32Array.from(dayNumbers);
  await connection.run(BATCH_VISITORS_SQL);
  await appendColumns(
    await connection.createAppender("batch_visitors"),
    [INTEGER, DATE, UBIGINT, UINTEGER],
    [websiteColumn, dayColumn, BigUint64Array.from(hashes), Uint32Array.from(hashes, (_, seq) => seq)],
  );
  const [, known, given, nth] = (await connection.runAndReadAll(MATCH_SQL)).getColumnsJS() as [
    unknown[],
    (number | null)[],
    (number | null)[],
    bigint[],
  ];
  const numbers = new Uint32Array(hashes.length);
  const isNew: number[] = [];
  const websites = new Map<number, { websiteId: number; visitors: number; known: boolean }>();
  for (let seq = 0; seq < hashes.length; seq++) {
    const websiteId = websiteIds[seq] as number;
    let website = websites.get(websiteId);
    if (!website) {
      const before = given[seq];
      website = { websiteId, visitors: before ?? 0, known: before !== null && before !== undefined };
      websites.set(websiteId, website);
    }
    const number = known[seq];
    if (number !== null && number !== undefined) {
      numbers[seq] = number;
    } else {
      numbers[seq] = (given[seq] ?? 0) + Number(nth[seq]) - 1;
      website.visitors = Math.max(website.visitors, (numbers[seq] as number) + 1);
      isNew.push(seq);
    }
  }
  return {
    visitors: Uint32Array.from(slots, (slot) => numbers[slot] as number),
    newIds: {
      websiteIds: Int32Array.from(isNew, (seq) => websiteIds[seq] as number),
      days: Int32Array.from(isNew, (seq) => dayNumbers[seq] as number),
      hashes: BigUint64Array.from(isNew, (seq) => hashes[seq] as bigint),
      numbers: Uint32Array.from(isNew, (seq) => numbers[seq] as number),
    },
    visitorDays: { websiteIds: websiteColumn, days: dayColumn, numbers },
    websites: [...websites.values()],
    days,
  };
}
