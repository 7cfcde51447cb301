// Appends column-major rows to a DuckDB table through its data chunks' vectors directly
// (the C API, as @duckdb/node-bindings exposes it), not value by value: a number column is
// copied into its vector at once, and text of up to 12 bytes is written inline, as DuckDB's
// string_t holds it (4-byte length, then the bytes, zero-padded), so only longer text costs
// a call per value. node-api's own chunk writer converts and assigns every value on its
// own; that was half of the time a batch spent appending.
//
// Rows go in chunks of CHUNK_ROWS with a yield between them, so hits arriving during a
// batch's append are answered in between.

import { setImmediate as setImmediatePromise } from "node:timers/promises";
import { type DuckDBAppender, DuckDBDataChunk, type DuckDBType, DuckDBTypeId } from "@duckdb/node-api";
import duckdb from "@duckdb/node-bindings";

/** A column: numbers in a typed array of the column type's width (see WIDTHS), or text. */
export type Column = NumberColumn | readonly string[];
type NumberColumn =
  | Int32Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Uint8Array<ArrayBuffer>
  | BigInt64Array<ArrayBuffer>
  | BigUint64Array<ArrayBuffer>;

/** Rows per chunk, between two yields to the event loop (DuckDB's vector size, 2048, is the most a chunk holds). */
export const CHUNK_ROWS = 256;
/** Rows appended between two flushes of the appender: DuckDB's vector size (a multiple of CHUNK_ROWS). */
const FLUSH_ROWS = 2048;
/** Bytes of a string_t: length (uint32) and 12 inline bytes, or length, 4-byte prefix and a pointer. */
const STRING_BYTES = 16;
const INLINE_BYTES = 12;

/** The byte width of each number column type this module writes. */
const WIDTHS = new Map<DuckDBTypeId, number>([
  [DuckDBTypeId.BOOLEAN, 1],
  [DuckDBTypeId.UTINYINT, 1],
  [DuckDBTypeId.INTEGER, 4],
  [DuckDBTypeId.UINTEGER, 4],
  [DuckDBTypeId.DATE, 4],
  [DuckDBTypeId.BIGINT, 8],
  [DuckDBTypeId.UBIGINT, 8],
  [DuckDBTypeId.TIMESTAMP_S, 8],
]);

/** Appends `columns` (each `rows` long, in the table's column order and `types`) through `appender`, then closes it. */
export async function appendColumns(
  appender: DuckDBAppender,
  types: readonly DuckDBType[],
  columns: readonly Column[],
): Promise<void> {
  const rows = columns[0]?.length ?? 0;
  checkColumns(types, columns, rows);
  const wrapped = DuckDBDataChunk.create(types as DuckDBType[]);
  const chunk = wrapped.chunk;
  const text = new Uint8Array(CHUNK_ROWS * STRING_BYTES);
  try {
    for (let start = 0; start < rows; start += CHUNK_ROWS) {
      if (start > 0) await setImmediatePromise();
      const count = Math.min(rows - start, CHUNK_ROWS);
      duckdb.data_chunk_reset(chunk);
      columns.forEach((column, index) => {
        const vector = duckdb.data_chunk_get_vector(chunk, index);
        if (Array.isArray(column)) writeText(vector, column, start, count, text);
        else {
          const numbers = column as NumberColumn;
          const width = numbers.BYTES_PER_ELEMENT;
          duckdb.copy_data_to_vector(
            vector,
            0,
            numbers.buffer,
            numbers.byteOffset + start * width,
            count * width,
          );
        }
      });
      duckdb.data_chunk_set_size(chunk, count);
      appender.appendDataChunk(wrapped);
      // Flushing writes the appended rows into the table; per chunk it would cost 2-4 µs a
      // row more (measured at 1,000 and 50,000 rows a batch), so once per vector.
      if ((start + count) % FLUSH_ROWS === 0) appender.flushSync();
    }
  } finally {
    duckdb.data_chunk_reset(chunk);
  }
  appender.closeSync();
}

/**
 * A column of int64 values from numbers (whole, within ±2^53), written through two 32-bit
 * halves: a BigInt per value would be one more allocation per row.
 */
export function int64Column(count: number, valueAt: (row: number) => number): BigInt64Array<ArrayBuffer> {
  const column = new BigInt64Array(count);
  const halves = new Int32Array(column.buffer);
  for (let row = 0; row < count; row++) {
    const value = valueAt(row);
    const high = Math.floor(value / 2 ** 32);
    halves[2 * row] = value - high * 2 ** 32; // low half; the platform is little-endian, as DuckDB's
    halves[2 * row + 1] = high;
  }
  return column;
}

/** Writes short ASCII text inline with one copy for the chunk, then assigns the rest one by one. */
function writeText(
  vector: duckdb.Vector,
  column: readonly string[],
  start: number,
  count: number,
  bytes: Uint8Array<ArrayBuffer>,
): void {
  bytes.fill(0, 0, count * STRING_BYTES);
  const assigned: number[] = [];
  for (let row = 0; row < count; row++) {
    const value = column[start + row] as string;
    if (value.length === 0) continue; // all zeros: the empty string
    if (value.length > INLINE_BYTES || !writeInlineAscii(bytes, row * STRING_BYTES, value))
      assigned.push(row);
  }
  duckdb.copy_data_to_vector(vector, 0, bytes.buffer, bytes.byteOffset, count * STRING_BYTES);
  for (const row of assigned) {
    duckdb.vector_assign_string_element(vector, row, column[start + row] as string);
  }
}

/** Writes `value` as an inline string_t at `offset` if it is ASCII (one byte a character); false otherwise. */
function writeInlineAscii(bytes: Uint8Array, offset: number, value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) return false; // assigned later, which overwrites the whole slot
    bytes[offset + 4 + i] = code;
  }
  bytes[offset] = value.length; // little-endian uint32; at most 12
  return true;
}

function checkColumns(types: readonly DuckDBType[], columns: readonly Column[], rows: number): void {
  if (columns.length !== types.length) throw new Error(`${columns.length} columns for ${types.length} types`);
  columns.forEach((column, index) => {
    const type = types[index] as DuckDBType;
    const width = WIDTHS.get(type.typeId);
    const fits = Array.isArray(column)
      ? type.typeId === DuckDBTypeId.VARCHAR
      : (column as NumberColumn).BYTES_PER_ELEMENT === width;
    if (!fits) throw new Error(`column ${index} does not hold ${type.toString()} values`);
    if (column.length !== rows) throw new Error(`column ${index} has ${column.length} rows, not ${rows}`);
  });
}
