// Wrong sign-in attempts on stats pages, counted per (client address, domain) in a fixed
// window from the first failure. Over the limit every attempt is refused until the window
// ends, right or wrong, so guessing cannot go on. In memory: each server counts its own.

import type { Clock } from "../clock.js";

export const MAX_WRONG_ATTEMPTS = 10;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;
/** Tracked (address, domain) pairs; beyond it the oldest are forgotten first. */
const MAX_TRACKED = 50_000;

interface Window {
  started: number;
  failures: number;
}

export class AttemptLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly maxFailures = MAX_WRONG_ATTEMPTS,
    private readonly windowMs = ATTEMPT_WINDOW_MS,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const window = this.current(key);
    if (!window || window.failures < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((window.started + this.windowMs - this.clock.now().getTime()) / 1000));
  }

  fail(key: string): void {
    const window = this.current(key);
    if (window) {
      window.failures += 1;
      return;
    }
    if (this.windows.size >= MAX_TRACKED) this.forgetOldest();
    this.windows.set(key, { started: this.clock.now().getTime(), failures: 1 });
  }

  succeed(key: string): void {
    this.windows.delete(key);
  }

  /** The window of `key` if it is still running; an ended one is dropped. */
  private current(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && this.clock.now().getTime() - window.started >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private forgetOldest(): void {
    const now = this.clock.now().getTime();
    for (const [key, window] of this.windows) {
      if (now - window.started >= this.windowMs) this.windows.delete(key);
    }
    // Still full: drop the oldest tenth at once (a Map iterates in insertion order), so a
    // flood of new addresses does not pay for this scan on every attempt.
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_TRACKED * 0.9) break;
      this.windows.delete(key);
    }
  }
}
