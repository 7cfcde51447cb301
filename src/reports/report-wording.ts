// The words and number formats shared by the text and HTML renderings of a report, so both
// say the same thing.

import { DEFAULT_TIME_ZONE } from "../stats/time-zone.js";
import { unicodeDomain } from "../unicode-domain.js";
import type { Comparison, UserReport, WebsiteReport } from "./report-builder.js";

const NUMBER = new Intl.NumberFormat("en-US");

export function formatNumber(value: number): string {
  return NUMBER.format(value);
}

/** "week" or "month". */
export function periodNoun(report: UserReport): string {
  return report.period.kind;
}

export function subjectOf(report: UserReport): string {
  const adjective = report.period.kind === "month" ? "Monthly" : "Weekly";
  return `${adjective} analytics report: ${report.period.label}`;
}

export function greetingOf(report: UserReport): string {
  return report.user.name ? `Hello ${report.user.name},` : "Hello,";
}

/** The period's dates are each website's local days (websiteTitle names a zone other than UTC). */
export function introOf(report: UserReport): string {
  const { kind, label, current } = report.period;
  if (kind === "month") return `Your monthly report for ${label} (${current.from} to ${current.to}).`;
  return `Your weekly report for ${label}.`;
}

/** The website as a report names it: its domain in Unicode, and its time zone unless UTC. */
export function websiteTitle(website: WebsiteReport): string {
  const domain = unicodeDomain(website.domain);
  return website.zone === DEFAULT_TIME_ZONE ? domain : `${domain} (days in ${website.zone})`;
}

/** "+12% on the previous week (1,100)", "no change on the previous week (40)", "none the previous week". */
export function describeChange(comparison: Comparison, report: UserReport): string {
  const previous = `the previous ${periodNoun(report)}`;
  if (comparison.change === null) return `none ${previous}`;
  const before = formatNumber(comparison.previous);
  if (comparison.change === 0) return `no change on ${previous} (${before})`;
  const sign = comparison.change > 0 ? "+" : "";
  return `${sign}${comparison.change}% on ${previous} (${before})`;
}

/** A referrer value as a reader understands it: "" means people who came directly. */
export function referrerLabel(value: string): string {
  return value === "" ? "(direct)" : value;
}

export const FOOTER =
  "You receive this report because email reports are on for these websites. " +
  "To stop them, set email to 0 on each website (PUT /api/v1/websites/{id}).";

export const NO_WEBSITES = "None of your websites with email reports is left.";
