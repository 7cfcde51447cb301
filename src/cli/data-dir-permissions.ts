// Keeps the data directory private to the server's user: it holds the stats-page cookie
// secret, API key hashes, password hashes and the daily visitor salts. Commands create it
// 0700 and their files 0600 (main.ts sets the umask); `serve` also tightens a directory
// and files an earlier version left readable by others, and says what it changed.

import fs from "node:fs";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
/** What a process of this command creates files with: no access for group or others. */
export const PRIVATE_UMASK = 0o077;

/**
 * The files a server or command keeps in the data directory besides the event store's
 * (the caller names those): the metadata store and its journals, and the server's address.
 */
const DATA_FILES = [
  "metadata.sqlite",
  "metadata.sqlite-wal",
  "metadata.sqlite-shm",
  "metadata.sqlite-journal",
  "server-url",
];

/** What else a server keeps there: the index of a given geolocation database (container.ts). */
const DATA_DIRECTORIES = ["geo"];

export interface Tightening {
  /** `name 0644 -> 0600` for each path whose mode changed. */
  changed: string[];
  /** `name: reason` for each path whose mode could not be changed (e.g. owned by another user). */
  failed: string[];
  /** An entry of the data directory that is not the server's, when there is one: the directory's mode was left. */
  foreign: string | null;
}

/**
 * Removes group and other access from the data directory's files (DATA_FILES and
 * `eventStoreFiles`; absent ones are skipped) and from the directory itself, when it holds
 * nothing else: a directory shared with other files (`--data-dir /var/lib` for
 * /var/lib/analytics, or /etc) is not the server's to close to everyone else.
 */
export function tightenDataDir(dataDir: string, eventStoreFiles: readonly string[]): Tightening {
  const ours = new Set([...DATA_FILES, ...eventStoreFiles, ...DATA_DIRECTORIES]);
  let foreign: string | null = null;
  try {
    foreign = fs.readdirSync(dataDir).find((name) => !ours.has(name)) ?? null;
  } catch {
    // unreadable: chmod below says why
  }
  const result: Tightening = { changed: [], failed: [], foreign };
  const files = [...DATA_FILES, ...eventStoreFiles].map((name) => path.join(dataDir, name));
  const entries = foreign === null ? [dataDir, ...files] : files;
  for (const entry of entries) {
    const stat = fs.statSync(entry, { throwIfNoEntry: false });
    if (!stat) continue;
    const mode = stat.mode & 0o7777;
    const tight = mode & ~PRIVATE_UMASK;
    if (mode === tight) continue;
    const name = entry === dataDir ? dataDir : path.basename(entry);
    try {
      fs.chmodSync(entry, tight);
      result.changed.push(`${name} ${octal(mode)} -> ${octal(tight)}`);
    } catch (error) {
      result.failed.push(`${name}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return result;
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, "0");
}
