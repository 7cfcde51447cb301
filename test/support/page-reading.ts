// Reading a dashboard's HTML in tests: a card by its id, and the rows of a list as their
// data attributes give them (the raw value and count the statistics API returns).

import assert from "node:assert/strict";

export type Rows = [string, number][];

/** The text of an attribute or element as it was before escaping. */
export const decodeEntities = (text: string) =>
  text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

/** The card `<section class="card ..." id="ID">` of the page. */
export function card(page: string, id: string): string {
  const found = new RegExp(`<section class="card [a-z]+" id="${id}"[\\s\\S]*?</section>`).exec(page)?.[0];
  assert.ok(found, `the page has ${id}`);
  return found;
}

/** Each row's value and count. */
export function rowsOf(html: string): Rows {
  return [...html.matchAll(/<tr data-value="([^"]*)">[\s\S]*?data-count="(\d+)"/g)].map((match) => [
    decodeEntities(match[1] ?? ""),
    Number(match[2]),
  ]);
}

/** The rows of one list card. */
export function listRows(page: string, stat: string): Rows {
  return rowsOf(card(page, `list-${stat}`));
}
