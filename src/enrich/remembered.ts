// A memory of answers by input text, for the pure lookups of screening and enrichment
// (page URLs, referrer hosts, languages): a site's hits repeat a few thousand pages and
// referrers and a few hundred Accept-Language values, and a Map lookup costs a tenth of
// parsing a URL again.

/** Inputs remembered per lookup; past it the memory starts over (cheaper than tracking use). */
const REMEMBERED = 10_000;
/** Longer inputs are computed each time, so each memory stays small (at most about 6 MB). */
const REMEMBERED_LENGTH = 512;

/** `compute`, answering an input it has seen from memory. */
export function remembered<T>(compute: (input: string) => T): (input: string) => T {
  const answers = new Map<string, T>();
  return (input) => {
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
