// What the embedded store remembers of one website's UTC day, so each batch adds exact
// unique-visitor counts without rescanning the day: the dense visitor numbers given to
// visitor hashes, and for each visitor the hours and values it has been counted under.
// A day's memory is rebuilt from its stored events when first needed (after a restart, or
// for an import into an older day), so it never disagrees with the raw events.

import { type Dimension, STATS } from "../../stats/catalog.js";

/** The unique-visitor statistics grouped by a stored column (not by day or hour). */
export const VISITOR_COLUMNS = STATS.filter(
  (stat) => stat.measure === "visitors" && stat.dimension !== "day" && stat.dimension !== "hour",
).map((stat) => ({ id: stat.id, column: stat.dimension as Exclude<Dimension, "day" | "hour"> }));

const VISITORS_PER_DAY = STATS.find((stat) => stat.measure === "visitors" && stat.dimension === "day")?.id;
const VISITORS_PER_HOUR = STATS.find((stat) => stat.measure === "visitors" && stat.dimension === "hour")?.id;
if (VISITORS_PER_DAY === undefined || VISITORS_PER_HOUR === undefined)
  throw new Error("catalog lacks visitor stats");

const COLUMNS = VISITOR_COLUMNS.length;
const INITIAL_CAPACITY = 1024;

export const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, "0"));

/** Receives one more unique visitor for (statistic, value). */
export type CountVisitor = (statId: number, value: string) => void;

export class VisitorDay {
  private readonly numbers = new Map<bigint, number>();
  private nextNumber = 0;
  // Per visitor number, in typed arrays grown by doubling: a busy day holds hundreds of
  // thousands of visitors, and a JavaScript array of strings per visitor cost about 500
  // bytes each (the strings of its first pageview kept alive) against about 40 here.
  /** Bit h set once the visitor was counted in hour h. */
  private hours = new Uint32Array(INITIAL_CAPACITY);
  /** Per visitor and column, the code of its first pageview's value (0 before one). */
  private firstCodes = new Uint32Array(INITIAL_CAPACITY * COLUMNS);
  /** Per column, value -> code (from 1): the day's distinct values, each kept once. */
  private readonly codes = VISITOR_COLUMNS.map(() => new Map<string, number>());
  /** `number|column|code` for values that differ from the first ones (a second language...). */
  private readonly otherValues = new Set<string>();

  constructor(readonly day: string) {}

  get visitors(): number {
    return this.nextNumber;
  }

  /** The dense number of a visitor hash on this day; `created` when first seen. */
  numberOf(hash: bigint): { number: number; created: boolean } {
    const known = this.numbers.get(hash);
    if (known !== undefined) return { number: known, created: false };
    const number = this.nextNumber;
    this.reserve(number);
    this.numbers.set(hash, number);
    return { number, created: true };
  }

  /** Restores a hash's number from storage. */
  remember(hash: bigint, number: number): void {
    this.numbers.set(hash, number);
    this.reserve(number);
  }

  /** Makes sure `number` is never handed out again (it is in the stored events). */
  reserve(number: number): void {
    if (number < this.nextNumber) return;
    this.nextNumber = number + 1;
    if (number >= this.hours.length) this.grow(number + 1);
  }

  /**
   * Records a pageview of visitor `number` in `hour` with its column `values` (in
   * VISITOR_COLUMNS order) and reports each unique-visitor count it starts to `count`.
   */
  pageview(number: number, hour: number, values: readonly string[], count?: CountVisitor): void {
    this.reserve(number);
    const base = number * COLUMNS;
    if (this.firstCodes[base] === 0) {
      for (let i = 0; i < COLUMNS; i++) this.firstCodes[base + i] = this.codeOf(i, values[i] as string);
      if (count) {
        count(VISITORS_PER_DAY as number, this.day);
        VISITOR_COLUMNS.forEach((column, i) => {
          count(column.id, values[i] as string);
        });
      }
    } else {
      VISITOR_COLUMNS.forEach((column, i) => {
        const value = values[i] as string;
        const code = this.codeOf(i, value);
        if (code === this.firstCodes[base + i]) return;
        const key = `${number}|${i}|${code}`;
        if (this.otherValues.has(key)) return;
        this.otherValues.add(key);
        count?.(column.id, value);
      });
    }
    const bit = (1 << hour) >>> 0;
    const seen = this.hours[number] as number;
    if ((seen & bit) === 0) {
      this.hours[number] = (seen | bit) >>> 0;
      count?.(VISITORS_PER_HOUR as number, HOURS[hour] as string);
    }
  }

  /** The day's code of a column's value, given on first sight (codes start at 1). */
  private codeOf(column: number, value: string): number {
    const codes = this.codes[column] as Map<string, number>;
    let code = codes.get(value);
    if (code === undefined) {
      code = codes.size + 1;
      codes.set(value, code);
    }
    return code;
  }

  private grow(visitors: number): void {
    let capacity = this.hours.length;
    while (capacity < visitors) capacity *= 2;
    const hours = new Uint32Array(capacity);
    hours.set(this.hours);
    this.hours = hours;
    const firstCodes = new Uint32Array(capacity * COLUMNS);
    firstCodes.set(this.firstCodes);
    this.firstCodes = firstCodes;
  }
}
