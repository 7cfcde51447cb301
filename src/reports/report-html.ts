// The HTML part of a report email: a plain table layout with inline styles, as mail clients
// need. Every value from the data (names, domains, pages, referrers, URLs) is escaped.

import { escapeHtml } from "../pages/html.js";
import { unicodeDomain } from "../unicode-domain.js";
import type { UserReport, WebsiteReport } from "./report-builder.js";
import {
  describeChange,
  FOOTER,
  formatNumber,
  greetingOf,
  introOf,
  NO_WEBSITES,
  referrerLabel,
  subjectOf,
  websiteTitle,
} from "./report-wording.js";

const CELL = 'style="padding:2px 8px;text-align:left;vertical-align:top"';
const NUMBER_CELL = 'style="padding:2px 8px;text-align:right;vertical-align:top;white-space:nowrap"';

export function renderReportHtml(report: UserReport): string {
  const body = report.websites.length
    ? report.websites.map((website) => websiteSection(website, report)).join("\n")
    : `<p>${escapeHtml(NO_WEBSITES)}</p>`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subjectOf(report))}</title></head>
<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937;max-width:640px">
<p>${escapeHtml(greetingOf(report))}</p>
<p>${escapeHtml(introOf(report))}</p>
${body}
<p style="color:#6b7280;font-size:12px">${escapeHtml(FOOTER)}</p>
</body>
</html>
`;
}

function websiteSection(website: WebsiteReport, report: UserReport): string {
  const url = escapeHtml(website.url);
  const name = escapeHtml(unicodeDomain(website.domain));
  return `<h2 style="font-size:18px;margin:24px 0 8px"><a href="${url}">${escapeHtml(websiteTitle(website))}</a></h2>
<table style="border-collapse:collapse">
<tr><th ${CELL}>Visitors</th><td ${NUMBER_CELL}>${formatNumber(website.visitors.current)}</td><td ${CELL}>${escapeHtml(describeChange(website.visitors, report))}</td></tr>
<tr><th ${CELL}>Pageviews</th><td ${NUMBER_CELL}>${formatNumber(website.pageviews.current)}</td><td ${CELL}>${escapeHtml(describeChange(website.pageviews, report))}</td></tr>
</table>
${ranked("Top pages", "Pageviews", website.topPages, (value) => value)}
${ranked("Top referrers", "Visits", website.topReferrers, referrerLabel)}
<p><a href="${url}">All statistics of ${name}</a></p>`;
}

function ranked(
  title: string,
  measure: string,
  rows: WebsiteReport["topPages"],
  label: (value: string) => string,
): string {
  if (rows.length === 0) return `<p><strong>${title}:</strong> none</p>`;
  const body = rows
    .map(
      (row) =>
        `<tr><td ${NUMBER_CELL}>${formatNumber(row.count)}</td><td ${CELL}>${escapeHtml(label(row.value))}</td></tr>`,
    )
    .join("\n");
  return `<table style="border-collapse:collapse;margin-top:12px">
<tr><th ${NUMBER_CELL}>${measure}</th><th ${CELL}>${title}</th></tr>
${body}
</table>`;
}
