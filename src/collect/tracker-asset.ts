// The built tracker script, held in memory with its gzip form and an ETag, so serving it
// costs no disk reads or compression per request.

import { createHash } from "node:crypto";
import fs from "node:fs";
import { gzipSync } from "node:zlib";

export interface TrackerAsset {
  source: Buffer;
  gzipped: Buffer;
  etag: string;
}

export const TRACKER_FILE = new URL("../../tracker/script.js", import.meta.url);

export function loadTrackerAsset(file: URL = TRACKER_FILE): TrackerAsset {
  const source = fs.readFileSync(file);
  return {
    source,
    gzipped: gzipSync(source, { level: 9 }),
    etag: `"${createHash("sha256").update(source).digest("base64url").slice(0, 22)}"`,
  };
}
