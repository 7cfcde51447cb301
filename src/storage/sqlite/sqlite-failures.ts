// Tells a SQLite file SQLite cannot use (a full disk, an I/O error, no access) from other
// errors, and says so in one line naming the file: at start (`No space left on device
// while opening /data/metadata.sqlite`) and on every statement of a running server, whose
// callers then answer 503 instead of 500.

import fs from "node:fs";
import path from "node:path";

/** Below this much free space, an I/O error is taken for a full disk (SQLite's -shm file alone needs 32 KiB). */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** SQLite's extended result code of a UNIQUE constraint's failure (sqlite3.h). */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;
/** Primary result codes (the low byte of an extended one) of a file SQLite cannot use. */
const FILE_FAILURES: ReadonlyMap<number, string> = new Map([
  [8, "SQLITE_READONLY"],
  [10, "SQLITE_IOERR"],
  [13, "SQLITE_FULL"],
  [14, "SQLITE_CANTOPEN"],
]);

/**
 * SQLite's own messages (sqlite3_errmsg) for the result codes told apart here. The driver's
 * run(), get() and exec() give the code with the error; its all() and iterate() (1.x, the
 * line that runs on Node.js 20) give the message alone, and an INSERT ... RETURNING runs
 * through all().
 */
const CODES_OF_MESSAGES: readonly [RegExp, number][] = [
  [/^UNIQUE constraint failed: /, SQLITE_CONSTRAINT_UNIQUE],
  [/^database or disk is full/, 13],
  [/^disk I\/O error/, 10],
  [/^unable to open database file/, 14],
  [/^attempt to write a readonly database/, 8],
];

/** The (extended) result code SQLite gave for this error, or null when it is not SQLite's. */
export function sqliteResultCode(error: unknown): number | null {
  const { code, errcode, message } = (error ?? {}) as {
    code?: unknown;
    errcode?: unknown;
    message?: unknown;
  };
  if (typeof errcode === "number") return errcode;
  if (code !== "ERR_SQLITE_ERROR" || typeof message !== "string") return null;
  return CODES_OF_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ?? null;
}

/**
 * `No space left on device while opening /data/metadata.sqlite` when SQLite cannot use its
 * file; null for other errors. SQLite reports a full disk met while mapping its shared
 * memory as an I/O error (SQLITE_IOERR_SHMSIZE), so the free space decides.
 */
export function sqliteFileFailure(error: unknown, file: string, doing: string): string | null {
  const code = sqliteResultCode(error);
  const name = code === null ? undefined : FILE_FAILURES.get(code & 0xff);
  if (code === null || name === undefined) return null;
  const full = name === "SQLITE_FULL" || freeBytes(path.dirname(file)) < NEARLY_FULL_BYTES;
  const cause = full ? "No space left on device" : `${String((error as Error).message)} (${name}, ${code})`;
  return `${cause} while ${doing} ${file}`;
}

function freeBytes(directory: string): number {
  try {
    const stats = fs.statfsSync(directory);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
