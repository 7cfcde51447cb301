// Keeps a path whose percent-escapes do not decode (`/api/v1/websites/%zz`, `%C3%28`) on the
// ordinary routes: its `%` signs are taken literally, so it reaches the route (or the 404)
// its shape names, with that scope's answers and headers, instead of the router's own 400.

/** `url` itself, or with every `%` of its path escaped when the path cannot be decoded. */
export function rewriteUndecodablePath(url: string): string {
  const queryAt = url.indexOf("?");
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (!path.includes("%")) return url;
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return `${path.replaceAll("%", "%25")}${queryAt < 0 ? "" : url.slice(queryAt)}`;
  }
}
