// Referrer host and language: the small, pure lookups of the enrichment step.

/** The referrer's host, lowercased, without a leading `www.`; "" for none or anything unparseable. */
export function referrerHost(referrer: string | undefined): string {
  if (!referrer) return "";
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return "";
    return url.hostname.replace(/^www\./, "").replace(/\.$/, "");
  } catch {
    return "";
  }
}

/** The primary subtag of the first Accept-Language entry, lowercase (`en-US,en;q=0.9` -> `en`). */
export function primaryLanguage(acceptLanguage: string | undefined): string {
  if (!acceptLanguage) return "";
  const first = acceptLanguage.split(",", 1)[0]?.split(";", 1)[0]?.trim() ?? "";
  const primary = first.split(/[-_]/, 1)[0]?.toLowerCase() ?? "";
  return /^[a-z]{2,3}$/.test(primary) ? primary : "";
}
