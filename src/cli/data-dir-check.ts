// Refuses a data directory no store could be kept in, before any command opens one: the
// stores create it themselves (mkdir -p), and a path naming a file, lying under a file or
// in a directory this user may not write would otherwise surface as a driver's ENOTDIR,
// EEXIST or EACCES with a stack trace. Only looks: creating it stays the stores' part, so a
// command refused later (serve's port in use) leaves nothing behind.

import fs from "node:fs";
import path from "node:path";
import { type Config, ConfigError } from "../config.js";

/**
 * Throws a ConfigError (one line) when the configuration keeps a store in the data
 * directory and that directory cannot be used: it is not a directory, a path above it is a
 * file, or this user can neither create it nor read and write it.
 */
export function checkDataDir(config: Config): void {
  // SQLite metadata unless PostgreSQL is configured, DuckDB events unless ClickHouse is.
  // With both elsewhere nothing needs the directory (serve's server-url is optional), and
  // an installation may well run where ./data cannot be created.
  if (config.databaseUrl && config.clickhouseUrl) return;
  const problem = dataDirProblem(config.dataDir);
  if (problem !== null) throw new ConfigError(problem);
}

/** Why `dataDir` (absolute) cannot hold the stores, or null when it can (or can be created). */
export function dataDirProblem(dataDir: string): string | null {
  const { entry, stat, danglingTo } = nearestExisting(dataDir);
  if (danglingTo !== undefined)
    return `The data directory ${dataDir} cannot be created: ${entry} is a symbolic link to ${danglingTo}, which does not exist.`;
  if (stat === null) return `The data directory ${dataDir} cannot be reached by this user.`;
  if (entry === dataDir) {
    if (!stat.isDirectory()) return `The data directory ${dataDir} is ${notADirectory(stat)}.`;
    if (!accessible(dataDir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK))
      return `The data directory ${dataDir} is not readable and writable by this user.`;
    return null;
  }
  // Missing: the stores will create it, and every directory up to it, inside `entry`.
  if (!stat.isDirectory())
    return `The data directory ${dataDir} cannot be created: ${entry} is ${notADirectory(stat)}.`;
  if (!accessible(entry, fs.constants.W_OK | fs.constants.X_OK))
    return `The data directory ${dataDir} cannot be created: ${entry} is not writable by this user.`;
  return null;
}

/**
 * The path itself or its nearest ancestor that exists, with its stat (symbolic links
 * followed); stat null when one cannot be looked at (a directory above it that this user
 * may not search), or when it is a symbolic link to nothing (danglingTo: its target), which
 * mkdir -p would meet as EEXIST.
 */
function nearestExisting(dataDir: string): { entry: string; stat: fs.Stats | null; danglingTo?: string } {
  let entry = dataDir;
  for (;;) {
    try {
      return { entry, stat: fs.statSync(entry) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const danglingTo = code === "ENOENT" ? linkTarget(entry) : undefined;
      if (danglingTo !== undefined) return { entry, stat: null, danglingTo };
      // ENOTDIR: a path above is a file; going up finds it.
      if ((code !== "ENOENT" && code !== "ENOTDIR") || path.dirname(entry) === entry)
        return { entry, stat: null };
      entry = path.dirname(entry);
    }
  }
}

/** The target of `entry` when it is a symbolic link, else undefined. */
function linkTarget(entry: string): string | undefined {
  try {
    return fs.readlinkSync(entry);
  } catch {
    return undefined;
  }
}

function notADirectory(stat: fs.Stats): string {
  return stat.isFile() ? "a file, not a directory" : "not a directory";
}

function accessible(entry: string, mode: number): boolean {
  try {
    fs.accessSync(entry, mode);
    return true;
  } catch {
    return false;
  }
}
