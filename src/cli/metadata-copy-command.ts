// `analytics metadata copy --to TARGET`: copies every metadata row (users and their API keys,
// websites, visitor salts, server secrets, the report log) from the configured store into an
// empty one, ids kept, so a move between SQLite and PostgreSQL needs no SQL by hand.

import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "../config.js";
import {
  configuredMetadataLocation,
  describeMetadataLocation,
  metadataLocationFrom,
  sameMetadataLocation,
} from "../storage/metadata-location.js";
import { openMetadataAt } from "../storage/open-storage.js";
import { MetadataNotEmptyError, type MetadataTable } from "../storage/ports.js";
import { configFrom, parseCommand, requireString, UsageError } from "./command-options.js";
import { dataDirProblem } from "./data-dir-check.js";

export async function metadataCopyCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { to: { type: "string" } });
  const targetLocation = metadataLocationFrom(requireString(values, "to"));
  // An SQLite target's directory is made if missing: one that cannot be is said in one line.
  const targetProblem =
    targetLocation.engine === "sqlite" ? dataDirProblem(path.dirname(targetLocation.file)) : null;
  if (targetProblem !== null) throw new ConfigError(targetProblem);
  if (targetLocation.engine === "sqlite" && !sqliteOrEmpty(targetLocation.file)) {
    throw new ConfigError(`--to ${targetLocation.file}: the file is not an SQLite database.`);
  }
  const sourceLocation = configuredMetadataLocation(configFrom(values));
  if (sameMetadataLocation(sourceLocation, targetLocation)) {
    throw new UsageError("--to names the configured metadata store itself: give another store to copy into.");
  }
  // Opening a missing SQLite file would create it and copy nothing: a mistyped data
  // directory must not pass for an empty installation.
  if (sourceLocation.engine === "sqlite" && !fs.existsSync(sourceLocation.file)) {
    throw new UsageError(
      `No metadata store to copy: ${sourceLocation.file} does not exist ` +
        "(give --data-dir or ANALYTICS_DATABASE_URL).",
    );
  }
  const from = describeMetadataLocation(sourceLocation);
  const to = describeMetadataLocation(targetLocation);
  const source = openMetadataAt(sourceLocation);
  try {
    const target = openMetadataAt(targetLocation);
    try {
      // Both at the latest schema, so every column read has a place to go.
      await source.migrate();
      await target.migrate();
      console.log(`Copying metadata from ${from} to ${to}`);
      const copied = await target.importRows(
        (table) => source.exportRows(table),
        (table, rows) => console.log(`  ${table}: ${countRows(rows)}`),
      );
      const total = Object.values(copied).reduce((sum, rows) => sum + rows, 0);
      console.log(`Copied ${countRows(total)} into ${to}.`);
      return 0;
    } catch (error) {
      if (!(error instanceof MetadataNotEmptyError)) throw error;
      console.error(
        `The target metadata store ${to} is not empty (${listRows(error.rows)}): ` +
          "metadata copy only fills an empty store, so nothing was copied.",
      );
      return 1;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function countRows(rows: number): string {
  return `${rows} ${rows === 1 ? "row" : "rows"}`;
}

function listRows(rows: Partial<Record<MetadataTable, number>>): string {
  return Object.entries(rows)
    .map(([table, count]) => `${table}: ${count}`)
    .join(", ");
}

/** Whether `file` is missing, empty (SQLite makes a database of it) or an SQLite database by its header. */
function sqliteOrEmpty(file: string): boolean {
  let handle: number;
  try {
    handle = fs.openSync(file, "r");
  } catch {
    return true; // missing (made by the copy), or unreadable: said when opened
  }
  try {
    const header = Buffer.alloc(16);
    const read = fs.readSync(handle, header, 0, 16, 0);
    return read === 0 || header.toString("latin1") === "SQLite format 3\u0000";
  } finally {
    fs.closeSync(handle);
  }
}
