// Building and reading EventColumns, the batches the stores insert (ports.ts): numbers in
// typed arrays, whose buffers move between threads without a copy, and each text field as
// its distinct values plus one code per event, so a message copies each distinct string
// once (a batch of 10,000 imported events has a few hundred pages, a few dozen browsers)
// instead of 10,000 objects of 17 fields, and a store numbers each distinct value once.
// An import's batch stays columns from its thread to the store: made into objects again on
// the main thread, it was 20-25 MiB of that thread's heap at an import's peak and 1.2-1.4
// µs of its CPU an event (bench/RESULTS.md, "An import's batch kept as columns").

import {
  EVENT_KIND_CODES,
  EVENT_TEXT_FIELDS,
  type EventColumns,
  type EventKind,
  type StoredEvent,
} from "./ports.js";

type TextField = (typeof EVENT_TEXT_FIELDS)[number];

const CUSTOM_EVENT = 1;
const VISIT = 2;
const ENGAGEMENT = 4;

/** The kind of the event with `flag` (a value of EventColumns.flags). */
export function kindOfFlag(flag: number): EventKind {
  return flag & CUSTOM_EVENT ? "event" : flag & ENGAGEMENT ? "engagement" : "pageview";
}

/** The stores' number of the kind of the event with `flag` (EVENT_KIND_CODES). */
export function kindCodeOfFlag(flag: number): number {
  return EVENT_KIND_CODES[kindOfFlag(flag)];
}

/** Whether the event with `flag` starts a visit. */
export function isVisitFlag(flag: number): boolean {
  return (flag & VISIT) !== 0;
}

/** The text column of `field`. */
export function textColumn(columns: EventColumns, field: TextField): EventColumns["texts"][number] {
  return columns.texts[EVENT_TEXT_FIELDS.indexOf(field)] as EventColumns["texts"][number];
}

/**
 * Columns filled an event at a time (up to `capacity`), so a batch's events need not all
 * be alive at once: the import thread turns each slice of a batch into columns as it goes,
 * and its intermediate objects die young instead of being copied by every collection.
 */
export class EventColumnsBuilder {
  private count = 0;
  private readonly websiteIds: Int32Array<ArrayBuffer>;
  private readonly times: Float64Array<ArrayBuffer>;
  private readonly visitors: BigUint64Array<ArrayBuffer>;
  private readonly flags: Uint8Array<ArrayBuffer>;
  private readonly texts = EVENT_TEXT_FIELDS.map(() => ({
    codeOf: new Map<string, number>(),
    values: [] as string[],
  }));
  private readonly codes: Uint32Array<ArrayBuffer>[];

  constructor(private readonly capacity: number) {
    this.websiteIds = new Int32Array(capacity);
    this.times = new Float64Array(capacity);
    this.visitors = new BigUint64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.codes = EVENT_TEXT_FIELDS.map(() => new Uint32Array(capacity));
  }

  add(event: StoredEvent): void {
    const i = this.count;
    if (i >= this.capacity) throw new Error(`more than ${this.capacity} events`);
    this.websiteIds[i] = event.websiteId;
    this.times[i] = event.ts.getTime();
    this.visitors[i] = event.visitor;
    this.flags[i] =
      (event.kind === "event" ? CUSTOM_EVENT : event.kind === "engagement" ? ENGAGEMENT : 0) |
      (event.isVisit ? VISIT : 0);
    for (let field = 0; field < EVENT_TEXT_FIELDS.length; field++) {
      const text = this.texts[field] as (typeof this.texts)[number];
      const value = event[EVENT_TEXT_FIELDS[field] as TextField];
      let code = text.codeOf.get(value);
      if (code === undefined) {
        code = text.values.length;
        text.values.push(value);
        text.codeOf.set(value, code);
      }
      (this.codes[field] as Uint32Array)[i] = code;
    }
    this.count = i + 1;
  }

  /** The columns of the events added, and the buffers to transfer with them. */
  build(): { columns: EventColumns; transfer: ArrayBuffer[] } {
    const { count } = this;
    const fit = <T extends { length: number; slice(start: number, end: number): T }>(array: T) =>
      array.length === count ? array : array.slice(0, count);
    const websiteIds = fit(this.websiteIds);
    const times = fit(this.times);
    const visitors = fit(this.visitors);
    const flags = fit(this.flags);
    const texts = this.texts.map((text, field) => ({
      values: text.values,
      codes: fit(this.codes[field] as Uint32Array<ArrayBuffer>),
    }));
    return {
      columns: { count, websiteIds, times, visitors, flags, texts },
      transfer: [websiteIds, times, visitors, flags, ...texts.map((text) => text.codes)].map(
        (array) => array.buffer,
      ),
    };
  }
}

/** `events` as columns (what the stores' insert takes). */
export function columnsOf(events: readonly StoredEvent[]): EventColumns {
  const builder = new EventColumnsBuilder(events.length);
  for (const event of events) builder.add(event);
  return builder.build().columns;
}

/** The events of `columns`, in order. */
export function fromColumns(columns: EventColumns): StoredEvent[] {
  const { count, websiteIds, times, visitors, flags, texts } = columns;
  const text = (field: number, i: number) => {
    const column = texts[field] as EventColumns["texts"][number];
    return column.values[column.codes[i] as number] as string;
  };
  const events = new Array<StoredEvent>(count);
  for (let i = 0; i < count; i++) {
    const flag = flags[i] as number;
    // Fields in EVENT_TEXT_FIELDS order; a test checks the two agree.
    events[i] = {
      websiteId: websiteIds[i] as number,
      ts: new Date(times[i] as number),
      visitor: visitors[i] as bigint,
      kind: kindOfFlag(flag),
      isVisit: isVisitFlag(flag),
      page: text(0, i),
      referrer: text(1, i),
      campaign: text(2, i),
      browser: text(3, i),
      os: text(4, i),
      device: text(5, i),
      resolution: text(6, i),
      language: text(7, i),
      country: text(8, i),
      city: text(9, i),
      continent: text(10, i),
      event: text(11, i),
    };
  }
  return events;
}
