// Whether a form post to a stats page came from this server's own pages, so that another
// website cannot sign a visitor in or out, or post wrong passwords to lock the visitor's
// address out. Browsers say where a post comes from; tools such as curl say nothing.

import type { FastifyRequest } from "fastify";

/**
 * In order, the first the request carries decides:
 * - `Sec-Fetch-Site` (set by the browser, pages cannot forge it): `same-origin`, or `none`
 *   (the person did it: a bookmark, the address bar), passes; `same-site` and `cross-site` do not.
 * - `Origin`: must be this server's origin (`null`, sent by sandboxed or privacy-minded pages, is refused).
 * - `Referer`: its origin must be this server's.
 * - None of them (curl, scripts, very old browsers): passes, as OWASP's guidance allows; every
 *   browser of the last years sends at least one of them on a cross-site post.
 * This server's origin is ANALYTICS_PUBLIC_URL's, or the request's own (its scheme and Host,
 * or X-Forwarded-Proto and -Host from a trusted proxy).
 */
export function fromOwnPage(request: FastifyRequest, publicUrl: string | null): boolean {
  const site = header(request, "sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none";
  const origin = header(request, "origin");
  if (origin !== undefined) return isOwnOrigin(origin, request, publicUrl);
  const referer = header(request, "referer");
  if (referer !== undefined) return isOwnOrigin(referer, request, publicUrl);
  return true;
}

function isOwnOrigin(url: string, request: FastifyRequest, publicUrl: string | null): boolean {
  const origin = originOf(url);
  if (origin === null) return false;
  return (
    origin === originOf(`${request.protocol}://${request.host}`) ||
    (publicUrl !== null && origin === originOf(publicUrl))
  );
}

/** `scheme://host[:port]` of a URL, lowercased and without a default port; null when it is not one. */
function originOf(url: string): string | null {
  try {
    const { origin } = new URL(url);
    return origin === "null" ? null : origin.toLowerCase();
  } catch {
    return null;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
