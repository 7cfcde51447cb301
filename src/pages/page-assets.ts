// The stats pages' static files, held in memory under content-addressed names below
// /assets/ (no domain can be called "assets": a domain has a dot), so they are cached for
// good and a new release is fetched at once.

import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { PAGE_STYLE } from "./page-style.js";

export interface PageAsset {
  path: string;
  type: string;
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

export interface PageAssets {
  stylesheet: PageAsset;
  byName: ReadonlyMap<string, PageAsset>;
}

function asset(stem: string, extension: string, type: string, text: string): PageAsset {
  const body = Buffer.from(text.trim());
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12);
  return {
    path: `/assets/${stem}-${hash}.${extension}`,
    type,
    body,
    gzipped: gzipSync(body, { level: 9 }),
    etag: `"${hash}"`,
  };
}

export function loadPageAssets(): PageAssets {
  const stylesheet = asset("stats", "css", "text/css; charset=utf-8", PAGE_STYLE);
  return { stylesheet, byName: new Map([[stylesheet.path.slice("/assets/".length), stylesheet]]) };
}
