// What a stopped server left in its event store: opens DATA_DIR/events.duckdb, runs a
// CHECKPOINT, counts the events, then measures the file (and its WAL, if any) on disk, and
// estimates where the bytes go: each table, and each column of `events`. It also copies
// each table on its own into a fresh file (`tableFiles`): the size each table would take
// alone, compressed as DuckDB writes a table in one go. The copies go to a temporary
// directory inside DATA_DIR and are removed at the end.
// Run it only while no server uses the data directory.
//
//   node bench/store-stats.mjs --data-dir DIR

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";

const sizeOf = (file) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const perEvent = (bytes, rows) => (rows > 0 ? Math.round((bytes / rows) * 100) / 100 : null);

export async function storeStats(dataDir) {
  const file = path.join(dataDir, "events.duckdb");
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  const query = async (sql) => (await connection.runAndReadAll(sql)).getRowObjects();
  let rows;
  let byKind;
  let database;
  let tables;
  let tableFiles;
  try {
    await connection.run("CHECKPOINT");
    rows = Number((await query("SELECT count(*) AS n FROM events"))[0].n);
    byKind = (
      await query(
        "SELECT kind, count(*) AS n, count(DISTINCT visitor) AS visitors FROM events GROUP BY kind ORDER BY kind",
      )
    ).map((row) => ({ kind: Number(row.kind), rows: Number(row.n), visitors: Number(row.visitors) }));
    const size = (await query("PRAGMA database_size"))[0];
    database = {
      blockSize: Number(size.block_size),
      totalBlocks: Number(size.total_blocks),
      usedBlocks: Number(size.used_blocks),
      freeBlocks: Number(size.free_blocks),
    };
    tables = await tableSizes(query, database.blockSize);
    tableFiles = await tableFileSizes(connection, dataDir, tables);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  const fileBytes = sizeOf(file);
  const walBytes = sizeOf(`${file}.wal`);
  const usedBytes = database.usedBlocks * database.blockSize;
  const inTables = tables.reduce((total, table) => total + table.bytes, 0);
  return {
    rows,
    byKind,
    fileBytes,
    walBytes,
    bytesPerEvent: perEvent(fileBytes + walBytes, rows),
    usedBytesPerEvent: perEvent(usedBytes, rows),
    database,
    // Per event: each table's data, what used blocks hold besides (indexes, metadata), and
    // the file's free blocks (space of rewritten data, reused by later writes).
    breakdown: {
      tables: Object.fromEntries(tables.map((table) => [table.name, perEvent(table.bytes, rows)])),
      indexesAndMetadata: perEvent(Math.max(0, usedBytes - inTables), rows),
      freeBlocks: perEvent(database.freeBlocks * database.blockSize, rows),
    },
    tableRows: Object.fromEntries(tables.map((table) => [table.name, table.rows])),
    // Each table copied alone into a fresh file: bytes, bytes per event, and the empty
    // file's size (headers and metadata, counted in every copy).
    tableFiles: {
      emptyFileBytes: tableFiles.emptyFileBytes,
      tables: Object.fromEntries(
        tableFiles.tables.map((table) => [
          table.name,
          { bytes: table.bytes, bytesPerEvent: perEvent(table.bytes - tableFiles.emptyFileBytes, rows) },
        ]),
      ),
    },
    columns: tables.find((table) => table.name === "events")?.columns ?? [],
  };
}

/**
 * Copies each table into its own new database file (in a temporary directory inside
 * `dataDir`), checkpoints and measures it; also an empty file holding one empty table.
 */
async function tableFileSizes(connection, dataDir, tables) {
  const dir = fs.mkdtempSync(path.join(dataDir, "split-"));
  const quote = (name) => `"${name.replace(/"/g, '""')}"`;
  const copy = async (label, create) => {
    const file = path.join(dir, `${label}.duckdb`);
    await connection.run(`ATTACH '${file.replace(/'/g, "''")}' AS split_copy`);
    try {
      await connection.run(create);
      await connection.run("CHECKPOINT split_copy");
    } finally {
      await connection.run("DETACH split_copy");
    }
    return sizeOf(file) + sizeOf(`${file}.wal`);
  };
  try {
    const emptyFileBytes = await copy("empty", "CREATE TABLE split_copy.t (x INTEGER)");
    const sizes = [];
    for (const { name } of tables) {
      sizes.push({
        name,
        bytes: await copy(
          `table-${sizes.length}`,
          `CREATE TABLE split_copy.${quote(name)} AS SELECT * FROM main.${quote(name)}`,
        ),
      });
    }
    return { emptyFileBytes, tables: sizes };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Estimated bytes of every table and column (data and validity), from where the segments sit
 * in the file's blocks: a segment runs to the next segment in the same block (of any table),
 * or to the end of the block; additional blocks count whole. Also each column's compression
 * methods, most rows first.
 */
async function tableSizes(query, blockSize) {
  const names = (
    await query("SELECT table_name, estimated_size FROM duckdb_tables() WHERE NOT internal")
  ).map((row) => ({ name: String(row.table_name), rows: Number(row.estimated_size) }));
  const segments = [];
  for (const { name } of names) {
    const quoted = name.replace(/'/g, "''");
    for (const row of await query(
      `SELECT column_name, segment_type, compression, count, block_id, block_offset, additional_block_ids
       FROM pragma_storage_info('${quoted}') WHERE persistent AND block_id >= 0`,
    )) {
      segments.push({
        table: name,
        column: String(row.column_name),
        validity: row.segment_type === "VALIDITY",
        compression: String(row.compression),
        count: Number(row.count),
        block: Number(row.block_id),
        offset: Number(row.block_offset),
        extraBlocks: row.additional_block_ids?.items?.length ?? 0,
      });
    }
  }
  const byBlock = new Map();
  for (const segment of segments) {
    if (!byBlock.has(segment.block)) byBlock.set(segment.block, []);
    byBlock.get(segment.block).push(segment);
  }
  for (const list of byBlock.values()) {
    list.sort((a, b) => a.offset - b.offset);
    list.forEach((segment, i) => {
      const end = i + 1 < list.length ? list[i + 1].offset : blockSize;
      segment.bytes = end - segment.offset + segment.extraBlocks * blockSize;
    });
  }
  return names.map(({ name, rows }) => {
    const columns = new Map();
    let bytes = 0;
    for (const segment of segments) {
      if (segment.table !== name) continue;
      bytes += segment.bytes;
      const column = columns.get(segment.column) ?? { bytes: 0, compression: new Map() };
      column.bytes += segment.bytes;
      if (!segment.validity) {
        column.compression.set(
          segment.compression,
          (column.compression.get(segment.compression) ?? 0) + segment.count,
        );
      }
      columns.set(segment.column, column);
    }
    return {
      name,
      rows,
      bytes,
      columns: [...columns.entries()]
        .map(([column, info]) => ({
          name: column,
          bytes: info.bytes,
          compression: [...info.compression.entries()].sort((a, b) => b[1] - a[1]).map(([method]) => method),
        }))
        .sort((a, b) => b.bytes - a.bytes),
    };
  });
}

async function main() {
  const { values } = parseArgs({ options: { "data-dir": { type: "string" } } });
  if (!values["data-dir"]) {
    console.error("usage: store-stats.mjs --data-dir DIR");
    process.exit(2);
  }
  const stats = await storeStats(values["data-dir"]);
  stats.columns = stats.columns.map((column) => ({
    ...column,
    bytesPerEvent: perEvent(column.bytes, stats.rows),
  }));
  console.log(JSON.stringify(stats, null, 2));
}

if (path.resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) await main();
