// What collection kept out of a website's statistics: the hits dropped for it per local day
// and reason (bots, excluded addresses, invalid events, rate-limited senders, and hits
// refused while the event store could not take writes), every day of the range listed, and
// the range's totals. This server's counts not written yet are written first, so the answer
// includes every hit it dropped before the request (another server's at most the counter's
// interval behind).

import { NotFoundError, ValidationError } from "../errors.js";
import { COUNTED_DROP_REASONS, type CountedDropReason } from "../ingest/hit.js";
import type { DropRepository, WebsiteRepository } from "../storage/ports.js";
import { daysBetween, daysFrom, MAX_LISTED_DAYS } from "./day-rule.js";
import { checkRange } from "./stats-service.js";

export type DropNumbers = Record<CountedDropReason | "total", number>;

export interface DroppedHits {
  /** Every day of the range in order, zeros where nothing was dropped. */
  days: (DropNumbers & { day: string })[];
  totals: DropNumbers;
}

/** Refuses a range that ends before it starts, or lists more days than MAX_LISTED_DAYS. */
export function checkDroppedRange(from: string, to: string): void {
  checkRange(from, to);
  if (daysBetween(from, to) > MAX_LISTED_DAYS) {
    throw ValidationError.single(
      "to",
      `The dropped hits are listed for ranges of at most ${MAX_LISTED_DAYS} days; this one has ${daysBetween(from, to)}.`,
    );
  }
}

export class DroppedHitsService {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly drops: DropRepository,
    /** The drop counter, whose counts so far are written first (a failure leaves them out). */
    private readonly counter: { flush(): Promise<void> },
  ) {}

  async read(userId: number, websiteId: number, from: string, to: string): Promise<DroppedHits> {
    checkDroppedRange(from, to);
    if (!(await this.websites.find(userId, websiteId))) throw new NotFoundError();
    await this.counter.flush().catch(() => undefined);
    const byDay = new Map<string, DropNumbers>();
    const totals = zeros();
    for (const { day, reason, count } of await this.drops.read(websiteId, from, to)) {
      if (!(COUNTED_DROP_REASONS as readonly string[]).includes(reason)) continue;
      const numbers = byDay.get(day) ?? zeros();
      byDay.set(day, numbers);
      numbers[reason as CountedDropReason] += count;
      numbers.total += count;
      totals[reason as CountedDropReason] += count;
      totals.total += count;
    }
    return { days: daysFrom(from, to).map((day) => ({ day, ...(byDay.get(day) ?? zeros()) })), totals };
  }
}

function zeros(): DropNumbers {
  return Object.fromEntries([...COUNTED_DROP_REASONS, "total"].map((key) => [key, 0])) as DropNumbers;
}
