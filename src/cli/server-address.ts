// Where a running server can be reached, as it says itself: `serve` writes its base URL to
// `server-url` in the data directory once it listens (and removes it when it stops), so a
// command run beside it (`reports send`) links to the server users reach, not a guess from
// its own settings.

import fs from "node:fs";
import path from "node:path";

const FILE = "server-url";

/**
 * Writes the address; false when it cannot (it is a convenience for commands run beside
 * the server, so the server goes on without it). The data directory may not exist yet
 * when every store is a database server.
 */
export function writeServerAddress(dataDir: string, url: string): boolean {
  const file = path.join(dataDir, FILE);
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, `${url}\n`, { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file); // never half-written for a reader
    return true;
  } catch {
    return false;
  }
}

export function removeServerAddress(dataDir: string): void {
  fs.rmSync(path.join(dataDir, FILE), { force: true });
}

/** The base URL a server in `dataDir` wrote, or null when none runs there (or it is unreadable). */
export function readServerAddress(dataDir: string): string | null {
  try {
    const url = fs.readFileSync(path.join(dataDir, FILE), "utf8").trim();
    return /^https?:\/\/\S+$/.test(url) ? url : null;
  } catch {
    return null;
  }
}
