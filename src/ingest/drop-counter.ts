// Counts the hits collection drops for a website, per local day of its time zone and reason,
// in memory, and adds them to the metadata store every few seconds: a flood of bots costs a
// map increment a hit, and the store one upsert of a few rows an interval. What this
// guarantees: a failed write keeps its counts for the next one; a crash loses the counts of
// at most the last interval (a stop writes them). Counts only: nothing of the hit is kept.

import type { DropCount, DropRepository } from "../storage/ports.js";
import type { CountedDropReason } from "./hit.js";
import type { TrackedWebsite } from "./website-directory.js";

const DAY_MS = 86_400_000;

export interface DropCounterOptions {
  /** How often the counts are written (ms). */
  intervalMs?: number;
  /** A write failed (its counts wait for the next). */
  onError?: (error: unknown) => void;
}

export class DropCounter {
  /** Counts not written yet, by `websiteId day reason` (day: days since 1970 in the website's zone). */
  private pending = new Map<string, DropCount>();
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly drops: DropRepository,
    options: DropCounterOptions = {},
  ) {
    this.onError = options.onError ?? (() => undefined);
    this.timer = setInterval(() => void this.flush().catch(this.onError), options.intervalMs ?? 5_000);
    this.timer.unref();
  }

  /** One hit for `website`, received at `at` (ms), dropped for `reason`. */
  count(website: TrackedWebsite, reason: CountedDropReason, at: number): void {
    const day = website.zone.dayOf(at);
    const key = `${website.id} ${day} ${reason}`;
    const counted = this.pending.get(key);
    if (counted) counted.count++;
    else this.pending.set(key, { websiteId: website.id, day: dayString(day), reason, count: 1 });
  }

  /** Writes the counts so far; on failure they are kept (added to those counted meanwhile) and it rejects. */
  flush(): Promise<void> {
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        if (this.pending.size === 0) return;
        const taken = this.pending;
        this.pending = new Map();
        try {
          await this.drops.add([...taken.values()]);
        } catch (error) {
          for (const [key, counted] of taken) {
            const later = this.pending.get(key);
            if (later) later.count += counted.count;
            else this.pending.set(key, counted);
          }
          throw error;
        }
      });
    return this.writing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
