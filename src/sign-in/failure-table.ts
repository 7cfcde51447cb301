// Failed attempts per key, each in a fixed window from its first failure, for the attempt
// limiter. Bounded without forgetting a lock: when full it drops ended windows, then the
// unlocked keys with the fewest failures (oldest first); full of live locks, it takes no new key.

interface Entry {
  started: number;
  failures: number;
}

export class FailureTable {
  /** In order of `started` (a key is added at its first failure), so ended windows come first. */
  private readonly entries = new Map<string, Entry>();
  /** Unlocked keys by failure count (index 1 to limit - 1), each set in the order its keys got there. */
  private readonly unlocked: Set<string>[];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly capacity: number,
  ) {
    this.unlocked = Array.from({ length: limit }, () => new Set<string>());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Milliseconds until `key` is unlocked; 0 when it is not locked. */
  lockedFor(key: string, now: number): number {
    const entry = this.live(key, now);
    return entry && entry.failures >= this.limit ? entry.started + this.windowMs - now : 0;
  }

  /** Whether a failure of `key` can be counted: it is tracked already, or room is made for it. */
  hasRoom(key: string, now: number): boolean {
    return this.live(key, now) !== undefined || this.makeRoom(now);
  }

  /** Milliseconds until the first window ends: when the table is full of locks, the wait for room. */
  fullFor(now: number): number {
    const first = this.entries.values().next().value;
    return first ? first.started + this.windowMs - now : 0;
  }

  /** Counts a failure of `key`; call hasRoom first. */
  count(key: string, now: number): void {
    const entry = this.live(key, now);
    if (!entry) {
      this.entries.set(key, { started: now, failures: 1 });
      this.file(key, 1);
      return;
    }
    this.unfile(key, entry.failures);
    entry.failures += 1;
    this.file(key, entry.failures);
  }

  /** Takes back one counted failure of `key` (an attempt that turned out right, or was never checked). */
  uncount(key: string, now: number): void {
    const entry = this.live(key, now);
    if (!entry) return;
    this.unfile(key, entry.failures);
    entry.failures -= 1;
    if (entry.failures <= 0) this.entries.delete(key);
    else this.file(key, entry.failures);
  }

  forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.unfile(key, entry.failures);
    this.entries.delete(key);
  }

  /** The entry of `key` if its window is still running; an ended one is dropped. */
  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && now - entry.started >= this.windowMs) {
      this.forget(key);
      return undefined;
    }
    return entry;
  }

  /**
   * Room for one more key. Dropping the unlocked key with the fewest failures is what keeps a
   * flood of one-off keys from pushing out a key that is close to its limit: to evict a key
   * with 9 failures, every other unlocked key must first have 9 too.
   */
  private makeRoom(now: number): boolean {
    if (this.entries.size < this.capacity) return true;
    for (const [key, entry] of this.entries) {
      if (now - entry.started < this.windowMs) break;
      this.forget(key);
    }
    if (this.entries.size < this.capacity) return true;
    for (const keys of this.unlocked) {
      for (const key of keys) {
        this.forget(key);
        return true;
      }
    }
    return false;
  }

  private file(key: string, failures: number): void {
    this.unlocked[failures]?.add(key);
  }

  private unfile(key: string, failures: number): void {
    this.unlocked[failures]?.delete(key);
  }
}
