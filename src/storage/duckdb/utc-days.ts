// UTC days as the embedded store keys them: days since 1970-01-01 (DuckDB's DATE) and their
// YYYY-MM-DD form.

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export function dayNumberOf(instant: Date | number): number {
  return Math.floor((typeof instant === "number" ? instant : instant.getTime()) / DAY_MS);
}

/** YYYY-MM-DD of a day number. */
export function dayString(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of YYYY-MM-DD. */
export function dayNumberFromString(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}
