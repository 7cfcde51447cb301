// The HTML document every stats page shares: head (stylesheet, a referrer for our own pages
// only, no indexing of locked pages), the body it is given, and the footer with the
// geolocation credit.

import { type Html, html } from "./html.js";

/** Who the geolocation data comes from; its licence asks to say so where it is shown. */
export type GeoSource = "dbip" | "maxmind";

export interface LayoutOptions {
  title: string;
  stylesheet: string;
  body: Html;
  /** Pages that are not public statistics ask search engines to stay away. */
  index?: boolean;
  geo?: GeoSource;
}

export function layout({ title, stylesheet, body, index = false, geo }: LayoutOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${index ? "" : html`<meta name="robots" content="noindex, nofollow">`}
<title>${title}</title>
<link rel="stylesheet" href="${stylesheet}">
<link rel="icon" href="data:,">
</head>
<body>
${body}
${geo ? footer(geo) : ""}
</body>
</html>
`;
}

function footer(geo: GeoSource): Html {
  const credit =
    geo === "dbip"
      ? html`<a href="https://db-ip.com" rel="noopener noreferrer">IP geolocation by DB-IP</a>`
      : html`<a href="https://www.maxmind.com" rel="noopener noreferrer">IP geolocation by MaxMind</a>`;
  return html`<footer><div class="wrap"><span>Cookieless statistics: no visitor is tracked across sites or days.</span><span>${credit}</span></div></footer>`;
}
