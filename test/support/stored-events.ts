// Comparing stored events as the EventStore port promises them back: every field as
// inserted except the visitor, which is only promised to keep each (website, UTC day)'s
// visitors apart as the inserted ones were.

import { EVENT_TEXT_FIELDS, type EventStore, type StoredEvent } from "../../src/storage/ports.js";

/** A website's events in time order, as the store exports them. */
export async function storedEvents(store: EventStore, websiteId: number): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const batch of store.exportEvents({ websiteId })) events.push(...batch);
  return events;
}

/**
 * The event without its visitor, its instant to the second, as a store gives it back; its
 * fields always in the same order, so that equal events give equal JSON.
 */
export function withoutVisitor(event: StoredEvent): Omit<StoredEvent, "visitor"> {
  const result = {
    websiteId: event.websiteId,
    ts: new Date(Math.floor(event.ts.getTime() / 1000) * 1000),
    kind: event.kind,
    isVisit: event.isVisit,
  } as Omit<StoredEvent, "visitor">;
  for (const field of EVENT_TEXT_FIELDS) result[field] = event[field];
  return result;
}

/**
 * Each event's visitor as the order in which its (website, UTC day, visitor) first appears
 * in the list: two lists of the same events keep visitors apart alike iff these are equal.
 */
export function visitorPattern(events: readonly StoredEvent[]): number[] {
  const first = new Map<string, number>();
  return events.map((event) => {
    const key = `${event.websiteId} ${event.ts.toISOString().slice(0, 10)} ${event.visitor}`;
    if (!first.has(key)) first.set(key, first.size);
    return first.get(key) as number;
  });
}

/** A stable text of an event without its visitor, to compare lists whose order may differ. */
export function eventKey(event: StoredEvent): string {
  return JSON.stringify(withoutVisitor(event));
}
