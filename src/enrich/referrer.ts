// Referrer host and language: the small, pure lookups of the enrichment step, both
// remembered by their input (remembered.ts).

import { remembered } from "./remembered.js";

/** `compute` remembered, with no input (a field not sent) as "". */
function lookup(compute: (input: string) => string): (input: string | undefined) => string {
  const answer = remembered(compute);
  return (input) => (input ? answer(input) : "");
}

/** The referrer's host, lowercased, without a leading `www.`; "" for none or anything unparseable. */
export const referrerHost = lookup((referrer) => {
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return "";
    return url.hostname.replace(/^www\./, "").replace(/\.$/, "");
  } catch {
    return "";
  }
});

/** The primary subtag of the first Accept-Language entry, lowercase (`en-US,en;q=0.9` -> `en`). */
export const primaryLanguage = lookup((acceptLanguage) => {
  const first = acceptLanguage.split(",", 1)[0]?.split(";", 1)[0]?.trim() ?? "";
  const primary = first.split(/[-_]/, 1)[0]?.toLowerCase() ?? "";
  return /^[a-z]{2,3}$/.test(primary) ? primary : "";
});
