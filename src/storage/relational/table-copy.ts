// Whole metadata tables in and out of any Kysely dialect, in values both engines accept, so
// `metadata copy` can move a store between SQLite and PostgreSQL row for row, ids kept.

import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { formatTimestamp } from "../../clock.js";
import { METADATA_TABLES, MetadataNotEmptyError, type MetadataRow, type MetadataTable } from "../ports.js";
import type { Database } from "./schema.js";

/**
 * Each table's primary key (rows are read in its order, a batch after the last key seen) and
 * the column whose values the engine generates, to be moved past the highest copied one.
 */
const KEYS: { readonly [T in MetadataTable]: { key: readonly string[]; identity?: string } } = {
  users: { key: ["id"], identity: "id" },
  websites: { key: ["id"], identity: "id" },
  visitor_salts: { key: ["day"] },
  server_secrets: { key: ["name"] },
  report_log: { key: ["user_id", "period_key"] },
  user_sessions: { key: ["token_hash"] },
  api_keys: { key: ["key_id"] },
  dropped_hits: { key: ["website_id", "day", "reason"] },
};

/** Rows per read and per INSERT: far below either engine's limit of bound values. */
const BATCH_ROWS = 500;

/** Moves a table's generated ids past the highest one present (a no-op where the engine does it itself). */
export type IdentityContinuer = (
  db: Transaction<Database>,
  table: MetadataTable,
  column: string,
) => Promise<void>;

/** MetadataStore.exportRows: a table's rows, a batch at a time, in primary-key order. */
export async function* exportRows(db: Kysely<Database>, table: MetadataTable): AsyncIterable<MetadataRow[]> {
  const { key } = KEYS[table];
  const order = sql.join(key.map((column) => sql.ref(column)));
  let after: RawBuilder<unknown> = sql`1 = 1`;
  for (;;) {
    // Every column: a column a migration adds is copied without being listed anywhere.
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE ${after} ORDER BY ${order} LIMIT ${BATCH_ROWS}`.execute(db);
    if (rows.length === 0) return;
    const batch = rows.map(plainRow);
    yield batch;
    if (rows.length < BATCH_ROWS) return;
    const last = batch[batch.length - 1] as MetadataRow;
    // A row-value comparison: the next batch starts after the last key, whatever its width.
    after = sql`(${order}) > (${sql.join(key.map((column) => last[column]))})`;
  }
}

/** MetadataStore.importRows into an empty store, in one transaction. */
export async function importRows(
  db: Kysely<Database>,
  continueIdentity: IdentityContinuer | undefined,
  read: (table: MetadataTable) => AsyncIterable<MetadataRow[]>,
  onTable?: (table: MetadataTable, rows: number) => void,
): Promise<Record<MetadataTable, number>> {
  return db.transaction().execute(async (trx) => {
    await refuseRows(trx);
    const copied = Object.fromEntries(METADATA_TABLES.map((table) => [table, 0])) as Record<
      MetadataTable,
      number
    >;
    for (const table of METADATA_TABLES) {
      for await (const rows of read(table)) {
        for (let start = 0; start < rows.length; start += BATCH_ROWS) {
          const slice = rows.slice(start, start + BATCH_ROWS);
          const columns = Object.keys(slice[0] ?? {});
          const values = slice.map((row) => sql`(${sql.join(columns.map((column) => row[column] ?? null))})`);
          await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
              VALUES ${sql.join(values)}`.execute(trx);
        }
        copied[table] += rows.length;
      }
      const { identity } = KEYS[table];
      if (identity && continueIdentity) await continueIdentity(trx, table, identity);
      onTable?.(table, copied[table]);
    }
    return copied;
  });
}

/** Throws MetadataNotEmptyError when any table holds a row. */
async function refuseRows(db: Transaction<Database>): Promise<void> {
  const found: Partial<Record<MetadataTable, number>> = {};
  for (const table of METADATA_TABLES) {
    const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(
      db,
    );
    const count = Number(rows[0]?.n ?? 0);
    if (count > 0) found[table] = count;
  }
  if (Object.keys(found).length > 0) throw new MetadataNotEmptyError(found);
}

/**
 * A row in engine-neutral values: PostgreSQL returns timestamps as Date (and, as opened, its
 * bigint ids as numbers), SQLite returns what was stored; both become what the repositories write.
 */
function plainRow(row: Record<string, unknown>): MetadataRow {
  const plain: MetadataRow = {};
  for (const [column, value] of Object.entries(row)) {
    plain[column] = value instanceof Date ? formatTimestamp(value) : (value as string | number | null);
  }
  return plain;
}
