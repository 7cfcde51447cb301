// Whole metadata tables in and out of any Kysely dialect, in values both engines accept, so
// `metadata copy` can move a store between SQLite and PostgreSQL row for row, ids kept.

import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { formatTimestamp } from "../../clock.js";
import { METADATA_TABLES, MetadataNotEmptyError, type MetadataRow, type MetadataTable } from "../ports.js";
import type { Database } from "./schema.js";

type ColumnKind = "integer" | "text" | "timestamp";

interface TableLayout<T extends MetadataTable> {
  /** Primary-key columns: rows are read in this order, a batch after the last key seen. */
  key: readonly (keyof Database[T] & string)[];
  /** Every column; the mapped type makes a column added to schema.ts an error here until it is copied. */
  columns: { readonly [C in keyof Database[T] & string]: ColumnKind };
  /** A column whose values the engine generates, to be moved past the highest copied one. */
  identity?: keyof Database[T] & string;
}

/** Any table's layout, as the copy walks it. */
interface Layout {
  key: readonly string[];
  columns: Readonly<Record<string, ColumnKind>>;
  identity?: string;
}

const LAYOUT: { readonly [T in MetadataTable]: TableLayout<T> } = {
  users: {
    key: ["id"],
    identity: "id",
    columns: {
      id: "integer",
      email: "text",
      name: "text",
      is_admin: "integer",
      api_key_id: "text",
      api_key_hash: "text",
      created_at: "timestamp",
      updated_at: "timestamp",
    },
  },
  websites: {
    key: ["id"],
    identity: "id",
    columns: {
      id: "integer",
      user_id: "integer",
      domain: "text",
      domain_unicode: "text",
      privacy: "integer",
      password_hash: "text",
      password_epoch: "integer",
      email: "integer",
      exclude_bots: "integer",
      exclude_params: "text",
      exclude_ips: "text",
      created_at: "timestamp",
      updated_at: "timestamp",
    },
  },
  visitor_salts: {
    key: ["day"],
    columns: { day: "text", salt: "text", created_at: "timestamp", expires_at: "timestamp" },
  },
  server_secrets: { key: ["name"], columns: { name: "text", value: "text", created_at: "timestamp" } },
  report_log: {
    key: ["user_id", "period_key"],
    columns: {
      user_id: "integer",
      period_key: "text",
      status: "text",
      claim_token: "text",
      attempts: "integer",
      last_error: "text",
      claimed_at: "timestamp",
      sent_at: "timestamp",
    },
  },
};

/** Rows per read and per INSERT: far below either engine's limit of bound values. */
const BATCH_ROWS = 500;

/** Moves a table's generated ids past the highest one present (a no-op where the engine does it itself). */
export type IdentityContinuer = (
  db: Transaction<Database>,
  table: MetadataTable,
  column: string,
) => Promise<void>;

export class RelationalTableCopy {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly continueIdentity: IdentityContinuer | undefined,
  ) {}

  async *exportRows(table: MetadataTable): AsyncIterable<MetadataRow[]> {
    const layout: Layout = LAYOUT[table];
    const columns = Object.keys(layout.columns);
    const order = sql.join(layout.key.map((column) => sql.ref(column)));
    let after: RawBuilder<unknown> = sql`1 = 1`;
    for (;;) {
      const { rows } = await sql<Record<string, unknown>>`
        SELECT ${sql.join(columns.map((column) => sql.ref(column)))} FROM ${sql.table(table)}
        WHERE ${after} ORDER BY ${order} LIMIT ${BATCH_ROWS}`.execute(this.db);
      if (rows.length === 0) return;
      const batch = rows.map((row) => plainRow(row, layout));
      yield batch;
      if (rows.length < BATCH_ROWS) return;
      const last = batch[batch.length - 1] as MetadataRow;
      // A row-value comparison: the next batch starts after the last key, whatever its width.
      after = sql`(${order}) > (${sql.join(layout.key.map((column) => last[column]))})`;
    }
  }

  async importRows(
    read: (table: MetadataTable) => AsyncIterable<MetadataRow[]>,
    onTable?: (table: MetadataTable, rows: number) => void,
  ): Promise<Record<MetadataTable, number>> {
    return this.db.transaction().execute(async (trx) => {
      await refuseRows(trx);
      const copied = Object.fromEntries(METADATA_TABLES.map((table) => [table, 0])) as Record<
        MetadataTable,
        number
      >;
      for (const table of METADATA_TABLES) {
        const layout: Layout = LAYOUT[table];
        const columns = Object.keys(layout.columns);
        for await (const rows of read(table)) {
          for (let start = 0; start < rows.length; start += BATCH_ROWS) {
            const slice = rows.slice(start, start + BATCH_ROWS);
            const values = slice.map(
              (row) => sql`(${sql.join(columns.map((column) => row[column] ?? null))})`,
            );
            await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
              VALUES ${sql.join(values)}`.execute(trx);
          }
          copied[table] += rows.length;
        }
        if (layout.identity && this.continueIdentity)
          await this.continueIdentity(trx, table, layout.identity);
        onTable?.(table, copied[table]);
      }
      return copied;
    });
  }
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
 * A row in engine-neutral values: PostgreSQL returns bigint columns as text and timestamps
 * as Date, SQLite returns what was stored; both become what the repositories write.
 */
function plainRow(row: Record<string, unknown>, layout: Layout): MetadataRow {
  const plain: MetadataRow = {};
  for (const [column, kind] of Object.entries(layout.columns) as [string, ColumnKind][]) {
    const value = row[column];
    if (value === null || value === undefined) plain[column] = null;
    else if (kind === "integer") plain[column] = Number(value);
    else if (kind === "timestamp")
      plain[column] = value instanceof Date ? formatTimestamp(value) : String(value);
    else plain[column] = String(value);
  }
  return plain;
}
