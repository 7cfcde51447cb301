// The body of POST /api/v1/events: its schema (also the API document's), and reading it
// from raw bytes exactly as the other routes read theirs (the same JSON parsing and
// prototype-poisoning checks, json-body.ts, and the same Ajv options but for coercion), so it
// can run on an import thread (import-worker.ts) and still answer with the errors every other
// route gives.

import { AjvCompiler } from "@fastify/ajv-compiler";
import type { ErrorObject } from "ajv";
import { type Static, Type } from "typebox";
import type { FieldErrors } from "../errors.js";
import type { ImportEvent, SchemaRejections } from "../ingest/event-importer.js";
import { MAX_IMPORT_EVENTS } from "../ingest/event-importer.js";
import { AJV_OPTIONS } from "./ajv-options.js";
import { type JsonBodyProblem, parseJsonBody } from "./json-body.js";
import { fieldErrorsFromAjv } from "./validation-messages.js";

const ImportedEvent = Type.Object({
  website_id: Type.Integer({ minimum: 1, description: "One of your websites." }),
  ts: Type.String({ format: "date-time", description: "When it happened, ISO-8601 with a time zone." }),
  page: Type.String({ maxLength: 8192, description: "Absolute URL of the page." }),
  referrer: Type.Optional(Type.String({ maxLength: 8192 })),
  screen_resolution: Type.Optional(Type.String({ maxLength: 32, description: "WIDTHxHEIGHT." })),
  ip: Type.Optional(
    Type.String({ maxLength: 64, description: "The visitor's IP address (used, never stored)." }),
  ),
  user_agent: Type.Optional(
    Type.String({ maxLength: 2048, description: "The visitor's user agent (used, never stored)." }),
  ),
  accept_language: Type.Optional(Type.String({ maxLength: 512 })),
  event: Type.Optional(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      value: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Number()])),
      unit: Type.Optional(Type.String({ maxLength: 64 })),
    }),
  ),
  engagement: Type.Optional(
    Type.Boolean({
      description:
        "True for an engagement: the page was looked at until `ts` (a visit lasts until its last one). Ignored with `event`.",
    }),
  ),
});

export const ImportBody = Type.Object({
  events: Type.Array(ImportedEvent, { minItems: 1, maxItems: MAX_IMPORT_EVENTS }),
});

/** Why a body could not be read; the route answers each as every other route does. */
export type ImportBodyProblem = { kind: JsonBodyProblem } | { kind: "schema"; validation: ErrorObject[] };

/**
 * Reads a body: its events, with what the schema found wrong with some of them (checked
 * further once their websites are known, so one answer names every invalid event), or what
 * is wrong with the body as a whole.
 */
export type ImportBodyReader = (
  body: Uint8Array,
) => { events: ImportEvent[]; rejected: SchemaRejections } | { problem: ImportBodyProblem };

export function importBodyReader(): ImportBodyReader {
  // JSON says its types, so none is coerced: coercion (there for form strings) took 5 for
  // the user agent "5", and null for "", where the client had sent a wrong type.
  const options = { ...AJV_OPTIONS, customOptions: { ...AJV_OPTIONS.customOptions, coerceTypes: false } };
  const validate = AjvCompiler()({}, options)({
    schema: ImportBody,
    method: "POST",
    url: "/api/v1/events",
    httpPart: "body",
  }) as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
  const decoder = new TextDecoder();
  return (bytes) => {
    const parsed = parseJsonBody(decoder.decode(bytes));
    if ("problem" in parsed) return { problem: { kind: parsed.problem } };
    const body = parsed.value;
    if (validate(body)) {
      return { events: (body as Static<typeof ImportBody>).events.map(importEvent), rejected: new Map() };
    }
    const errors = validate.errors ?? [];
    // Ajv reports every error at once (allErrors). A body that is wrong as a whole (not an
    // object, no list, too many events) is answered for that alone, as every route would.
    const whole = errors.filter((error) => eventIndexOf(error) === null);
    if (whole.length > 0) return { problem: { kind: "schema", validation: whole } };
    // Only some events are wrong; one that is not even an object reads as an empty one.
    const events = (body as { events: unknown[] }).events.map((event) =>
      importEvent((typeof event === "object" && event !== null ? event : {}) as Static<typeof ImportedEvent>),
    );
    return { events, rejected: rejectionsOf(errors) };
  };
}

/** `/events/12/page` -> 12; null for an error about the body or the list itself. */
function eventIndexOf(error: ErrorObject): number | null {
  const match = /^\/events\/(\d+)(?:\/|$)/.exec(error.instancePath);
  return match ? Number(match[1]) : null;
}

/** Each refused event's fields, named relative to the event, with the same sentences as any route's. */
function rejectionsOf(errors: readonly ErrorObject[]): SchemaRejections {
  const byEvent = new Map<number, ErrorObject[]>();
  for (const error of errors) {
    const index = eventIndexOf(error) as number;
    const list = byEvent.get(index);
    if (list) list.push(error);
    else byEvent.set(index, [error]);
  }
  const rejected = new Map<number, FieldErrors>();
  for (const [index, eventErrors] of byEvent) {
    const prefix = `events.${index}`;
    const fields: FieldErrors = {};
    for (const [field, messages] of Object.entries(fieldErrorsFromAjv(eventErrors))) {
      fields[field === prefix ? "" : field.slice(prefix.length + 1)] = messages;
    }
    rejected.set(index, fields);
  }
  return rejected;
}

function importEvent(event: Static<typeof ImportedEvent>): ImportEvent {
  return {
    websiteId: event.website_id,
    ts: event.ts,
    page: event.page,
    referrer: event.referrer,
    screenResolution: event.screen_resolution,
    ip: event.ip,
    userAgent: event.user_agent,
    acceptLanguage: event.accept_language,
    event: event.event,
    engagement: event.engagement,
  };
}
