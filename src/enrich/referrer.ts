// Referrer host and language: the small, pure lookups of the enrichment step. Both are
// remembered by their input: a site's hits come from a few thousand referrers and a few
// hundred Accept-Language values, and a Map lookup costs a tenth of parsing a URL again.

/** Inputs remembered per lookup; past it the memory starts over (cheaper than tracking use). */
const REMEMBERED = 10_000;
/** Longer inputs are computed each time, so the memory stays small (at most about 5 MB). */
const REMEMBERED_LENGTH = 512;

function remembered(compute: (input: string) => string): (input: string | undefined) => string {
  const answers = new Map<string, string>();
  return (input) => {
    if (!input) return "";
    if (input.length > REMEMBERED_LENGTH) return compute(input);
    let answer = answers.get(input);
    if (answer === undefined) {
      answer = compute(input);
      if (answers.size >= REMEMBERED) answers.clear();
      answers.set(input, answer);
    }
    return answer;
  };
}

/** The referrer's host, lowercased, without a leading `www.`; "" for none or anything unparseable. */
export const referrerHost = remembered((referrer) => {
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return "";
    return url.hostname.replace(/^www\./, "").replace(/\.$/, "");
  } catch {
    return "";
  }
});

/** The primary subtag of the first Accept-Language entry, lowercase (`en-US,en;q=0.9` -> `en`). */
export const primaryLanguage = remembered((acceptLanguage) => {
  const first = acceptLanguage.split(",", 1)[0]?.split(";", 1)[0]?.trim() ?? "";
  const primary = first.split(/[-_]/, 1)[0]?.toLowerCase() ?? "";
  return /^[a-z]{2,3}$/.test(primary) ? primary : "";
});
