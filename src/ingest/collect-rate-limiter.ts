// Per-client-IP allowance of the public collection endpoint: a fixed one-minute window of
// counters, reset lazily, so a flood from one address is dropped (as rate_limited)
// without timers or unbounded memory.

import type { Clock } from "../clock.js";

const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

export class CollectRateLimiter {
  private counts = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one hit from `ip` at `now` (ms); false when the address is over its allowance this minute. */
  allow(ip: string, now = this.clock.now().getTime()): boolean {
    if (now - this.windowStart >= WINDOW_MS || this.counts.size >= MAX_TRACKED) {
      this.counts = new Map();
      this.windowStart = now;
    }
    const count = (this.counts.get(ip) ?? 0) + 1;
    this.counts.set(ip, count);
    return count <= this.perMinute;
  }
}
