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

export const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, "0"));

/** Receives one more unique visitor for (statistic, value). */
export type CountVisitor = (statId: number, value: string) => void;

export class VisitorDay {
  private readonly numbers = new Map<bigint, number>();
  private nextNumber = 0;
  /** Per visitor number: bit h set once the visitor was counted in hour h. */
  private readonly hours: number[] = [];
  /** Per visitor number: the column values of its first pageview (undefined before one). */
  private readonly firstValues: (string[] | undefined)[] = [];
  /** `number|stat|value` for values that differ from the first ones (a second language...). */
  private readonly otherValues = new Set<string>();

  constructor(readonly day: string) {}

  get visitors(): number {
    return this.nextNumber;
  }

  /** The dense number of a visitor hash on this day; `created` when first seen. */
  numberOf(hash: bigint): { number: number; created: boolean } {
    const known = this.numbers.get(hash);
    if (known !== undefined) return { number: known, created: false };
    const number = this.nextNumber++;
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
    if (number >= this.nextNumber) this.nextNumber = number + 1;
  }

  /**
   * Records a pageview of visitor `number` in `hour` with its column `values` (in
   * VISITOR_COLUMNS order) and reports each unique-visitor count it starts to `count`.
   */
  pageview(number: number, hour: number, values: readonly string[], count?: CountVisitor): void {
    this.reserve(number);
    const first = this.firstValues[number];
    if (first === undefined) {
      this.firstValues[number] = [...values];
      if (count) {
        count(VISITORS_PER_DAY as number, this.day);
        VISITOR_COLUMNS.forEach((column, i) => {
          count(column.id, values[i] as string);
        });
      }
    } else {
      VISITOR_COLUMNS.forEach((column, i) => {
        const value = values[i] as string;
        if (value === first[i]) return;
        const key = `${number}|${column.id}|${value}`;
        if (this.otherValues.has(key)) return;
        this.otherValues.add(key);
        count?.(column.id, value);
      });
    }
    const bit = 1 << hour;
    const seen = this.hours[number] ?? 0;
    if ((seen & bit) === 0) {
      this.hours[number] = seen | bit;
      count?.(VISITORS_PER_HOUR as number, HOURS[hour] as string);
    }
  }
}
