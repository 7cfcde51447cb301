// Seeded randomness for the randomized store tests, so a failure can be replayed: a small
// generator (mulberry32), a pick from a list, and geolocations as the pipeline makes them
// (city and continent agree with the country).

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(next: () => number, items: readonly T[]): T =>
  items[Math.floor(next() * items.length)] as T;

export const LOCATIONS = [
  { country: "US:United States", city: "US:Boston", continent: "NA:North America" },
  { country: "US:United States", city: "", continent: "NA:North America" },
  { country: "DE:Germany", city: "DE:Berlin", continent: "EU:Europe" },
  { country: "", city: "", continent: "" },
] as const;
