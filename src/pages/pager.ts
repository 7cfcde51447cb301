// Links to the pages before and after this one of a long list (the web app's lists and a
// dashboard's list opened in full).

import { type Html, html } from "./html.js";

/** Links to the pages before and after this one of a list (nothing for a list of one page). */
export function pager(page: number, pages: number, link: (page: number) => string): Html | "" {
  if (pages <= 1) return "";
  return html`<nav class="pager" aria-label="Pages">${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">Previous</a>` : ""}<span>Page ${page} of ${pages}</span>${
    page < pages ? html`<a href="${link(page + 1)}" rel="next">Next</a>` : ""
  }</nav>`;
}
