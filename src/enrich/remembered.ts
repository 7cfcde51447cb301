// A memory of answers by input text, for the pure lookups of screening and enrichment
// (page URLs, referrer hosts, languages): a site's hits repeat a few thousand pages and
// referrers and a few hundred Accept-Language values, and a Map lookup costs a tenth of
// parsing a URL again.

import { RecentMap } from "./recent-map.js";

/** Inputs remembered per lookup: at least the 10,000 used last (recent-map.ts). */
const REMEMBERED = 20_000;
/** Longer inputs are computed each time, so each memory stays small (at most about 12 MB). */
const REMEMBERED_LENGTH = 512;

/** `compute`, answering an input it has seen from memory. */
export function remembered<T>(compute: (input: string) => T): (input: string) => T {
  const answers = new RecentMap<string, T>(REMEMBERED);
  return (input) => {
    if (input.length > REMEMBERED_LENGTH) return compute(input);
    let answer = answers.get(input);
    if (answer === undefined) {
      answer = compute(input);
      answers.set(input, answer);
    }
    return answer;
  };
}
