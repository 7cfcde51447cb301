// Where the sign-in leads back to: a signed-in page opened without a sign-in (a bookmark, a
// shared dashboard link, a sign-in that has expired) sends the browser to
// `/sign-in?next=<that page>`, and signing in opens that page again instead of the home page.
// `next` is written by whoever made the link, so only a path of this server is followed:
// anything that would leave it (`//other.example`, `/\other.example`, `https://...`) is
// dropped, and the path is given back percent-encoded, safe for a Location header.

import type { FastifyRequest } from "fastify";

/** A longer `next` is dropped (home then), as no page of the app needs one this long. */
const MAX_LENGTH = 8192;
const LOCAL = "http://local.invalid";

/** The path (with its query) of this server that `value` names, or null to go home. */
export function returnPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > MAX_LENGTH || !value.startsWith("/")) return null;
  let url: URL;
  try {
    url = new URL(value, LOCAL);
  } catch {
    return null;
  }
  // The parser reads `//host`, `/\host` and tabs or line breaks inside them as another host.
  if (url.origin !== LOCAL) return null;
  const path = `${url.pathname}${url.search}`;
  return path === "/" || path.startsWith("/sign-in") ? null : path;
}

/** Where to send a request that needs a sign-in: the sign-in page, then back to a page asked for. */
export function signInLocation(request: FastifyRequest): string {
  // A post cannot be made again from a link; its page is where its form was, not its action.
  const back = request.method === "GET" || request.method === "HEAD" ? returnPath(request.url) : null;
  return back === null ? "/sign-in" : `/sign-in?next=${encodeURIComponent(back)}`;
}
