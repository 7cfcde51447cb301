// The pages in front of locked statistics: the password form (privacy 2), the not-found
// page (unknown websites and private ones look the same, both with the owner's sign-in),
// and the notices of a wrong or rate-limited attempt.

import { unicodeDomain } from "../unicode-domain.js";
import { type Html, html } from "./html.js";
import { layout } from "./page-layout.js";

export interface GateOptions {
  /** The website's domain as stored (ASCII); shown in Unicode. */
  domain: string;
  stylesheet: string;
  /** Where the forms post (the page's own path). */
  action: string;
  /** The range to come back to after signing in, if one was asked for. */
  from?: string | undefined;
  to?: string | undefined;
  error?: string | undefined;
}

function rangeFields({ from, to }: GateOptions): Html {
  return html`${from ? html`<input type="hidden" name="from" value="${from}">` : ""}${
    to ? html`<input type="hidden" name="to" value="${to}">` : ""
  }`;
}

function keyForm(options: GateOptions, open: boolean): Html {
  return html`<details${open ? " open" : ""}>
<summary>Owner? Sign in with your API key</summary>
<form method="post" action="${options.action}">
${rangeFields(options)}
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Sign in</button>
</form>
</details>`;
}

function errorNotice(error: string | undefined): Html | "" {
  return error ? html`<p class="error" role="alert">${error}</p>` : "";
}

export function passwordPage(options: GateOptions): Html {
  return layout({
    title: `${unicodeDomain(options.domain)}: statistics`,
    stylesheet: options.stylesheet,
    body: html`<main class="wrap"><div class="gate card">
<h1>${unicodeDomain(options.domain)}</h1>
<p>These statistics are protected by a password.</p>
${errorNotice(options.error)}
<form method="post" action="${options.action}">
${rangeFields(options)}
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">View statistics</button>
</form>
${keyForm(options, false)}
</div></main>`,
  });
}

/** The same page for a website that does not exist and for one that is private. */
export function notFoundPage(options: GateOptions): Html {
  return layout({
    title: "Page not found",
    stylesheet: options.stylesheet,
    body: html`<main class="wrap"><div class="gate card">
<h1>Page not found</h1>
<p>There are no statistics to show at this address.</p>
${errorNotice(options.error)}
${keyForm(options, options.error !== undefined)}
</div></main>`,
  });
}

export function retryMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
