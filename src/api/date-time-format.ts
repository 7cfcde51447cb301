// The `date-time` format as ajv-formats checks it (RFC 3339 with a time zone), with a fast
// path for the form nearly every client sends (`2026-11-21T10:00:00.000Z`): one regular
// expression and a few comparisons instead of a split and two more expressions. Anything
// else, and anything the fast path would reject, is left to ajv-formats, so what passes is
// exactly what passed before. An import of 10,000 events checks 10,000 of them; the format
// was 7 % of the import thread's time.

import type { Ajv, Format } from "ajv";

const CANONICAL = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?Z$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** True when `text` is canonical and valid; false means "ask the full check", not "invalid". */
function canonicalAndValid(text: string): boolean {
  const match = CANONICAL.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const lastDay = month === 2 && isLeapYear(year) ? 29 : (DAYS[month] ?? 0);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= lastDay &&
    Number(match[4]) <= 23 &&
    Number(match[5]) <= 59 &&
    Number(match[6]) <= 59
  );
}

/** Puts the fast path in front of the `date-time` format ajv-formats added to `ajv`. */
export function addFastDateTime(ajv: Ajv): void {
  const full: Format | undefined = ajv.formats["date-time"];
  if (typeof full !== "object" || full instanceof RegExp || typeof full.validate !== "function") {
    throw new Error("ajv-formats' date-time format was expected");
  }
  const validate = full.validate as (text: string) => boolean;
  ajv.addFormat("date-time", {
    ...full,
    validate: (text: string) => canonicalAndValid(text) || validate(text),
  } as Format);
}
