// The plain-text part of a report email.

import type { UserReport, WebsiteReport } from "./report-builder.js";
import {
  describeChange,
  FOOTER,
  formatNumber,
  greetingOf,
  introOf,
  NO_WEBSITES,
  referrerLabel,
  websiteTitle,
} from "./report-wording.js";

export function renderReportText(report: UserReport): string {
  const lines = [greetingOf(report), "", introOf(report), ""];
  if (report.websites.length === 0) lines.push(NO_WEBSITES, "");
  for (const website of report.websites) lines.push(...websiteLines(website, report), "");
  lines.push("--", FOOTER);
  return `${lines.join("\n")}\n`;
}

function websiteLines(website: WebsiteReport, report: UserReport): string[] {
  const lines = [
    websiteTitle(website),
    `  Visitors:  ${formatNumber(website.visitors.current)} (${describeChange(website.visitors, report)})`,
    `  Pageviews: ${formatNumber(website.pageviews.current)} (${describeChange(website.pageviews, report)})`,
  ];
  lines.push(...ranked("Top pages", website.topPages, (value) => value));
  lines.push(...ranked("Top referrers", website.topReferrers, referrerLabel));
  lines.push(`  Statistics: ${website.url}`);
  return lines;
}

function ranked(title: string, rows: WebsiteReport["topPages"], label: (value: string) => string): string[] {
  if (rows.length === 0) return [`  ${title}: none`];
  const width = Math.max(...rows.map((row) => formatNumber(row.count).length));
  return [
    `  ${title}:`,
    ...rows.map((row) => `    ${formatNumber(row.count).padStart(width)}  ${label(row.value)}`),
  ];
}
