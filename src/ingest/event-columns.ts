// Enriched events as columns, to hand a batch from one thread to another cheaply: numbers
// in typed arrays, whose buffers are transferred rather than copied, and each text field as
// its distinct values plus one code per event, so a message copies each distinct string
// once (a batch of 10,000 imported events has a few hundred pages, a few dozen browsers)
// instead of 10,000 objects of 17 fields.

import { EVENT_TEXT_FIELDS, type StoredEvent } from "../storage/ports.js";

type TextField = (typeof EVENT_TEXT_FIELDS)[number];

export interface EventColumns {
  count: number;
  websiteIds: Int32Array<ArrayBuffer>;
  /** Milliseconds since the epoch. */
  times: Float64Array<ArrayBuffer>;
  visitors: BigUint64Array<ArrayBuffer>;
  /** Bit 0: a custom event (else a pageview); bit 1: the start of a visit. */
  flags: Uint8Array<ArrayBuffer>;
  /** Per text field, in EVENT_TEXT_FIELDS order. */
  texts: { values: string[]; codes: Uint32Array<ArrayBuffer> }[];
}

const CUSTOM_EVENT = 1;
const VISIT = 2;

/** The columns of `events` and the buffers to transfer with them. */
export function toColumns(events: readonly StoredEvent[]): {
  columns: EventColumns;
  transfer: ArrayBuffer[];
} {
  const count = events.length;
  const websiteIds = new Int32Array(count);
  const times = new Float64Array(count);
  const visitors = new BigUint64Array(count);
  const flags = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const event = events[i] as StoredEvent;
    websiteIds[i] = event.websiteId;
    times[i] = event.ts.getTime();
    visitors[i] = event.visitor;
    flags[i] = (event.kind === "event" ? CUSTOM_EVENT : 0) | (event.isVisit ? VISIT : 0);
  }
  const texts = EVENT_TEXT_FIELDS.map((field) => textColumn(events, field));
  return {
    columns: { count, websiteIds, times, visitors, flags, texts },
    transfer: [websiteIds, times, visitors, flags, ...texts.map((text) => text.codes)].map(
      (array) => array.buffer,
    ),
  };
}

function textColumn(events: readonly StoredEvent[], field: TextField) {
  const codeOf = new Map<string, number>();
  const values: string[] = [];
  const codes = new Uint32Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const value = (events[i] as StoredEvent)[field];
    let code = codeOf.get(value);
    if (code === undefined) {
      code = values.length;
      values.push(value);
      codeOf.set(value, code);
    }
    codes[i] = code;
  }
  return { values, codes };
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
      kind: flag & CUSTOM_EVENT ? "event" : "pageview",
      isVisit: (flag & VISIT) !== 0,
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
