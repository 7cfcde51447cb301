// A statistic's rows as CSV (RFC 4180) for spreadsheets: a `value,count` header, CRLF line
// ends, a field quoted when it holds a comma, a quote or a line break. Values come from
// anyone who can send a hit, so one a spreadsheet would run as a formula (beginning with
// =, +, -, @, a tab or a carriage return) is written with a leading apostrophe, as OWASP
// advises against CSV injection: the spreadsheet shows it as text.

import type { StatsRow } from "./stats-query.js";

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

export function statsCsv(rows: readonly StatsRow[]): string {
  const lines = ["value,count"];
  for (const row of rows) lines.push(`${csvField(inert(row.value))},${row.count}`);
  return `${lines.join("\r\n")}\r\n`;
}

function inert(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
