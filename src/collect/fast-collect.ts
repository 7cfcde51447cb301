// The fast path of POST /api/event, served straight from the HTTP server's request
// listener: a collection endpoint takes every pageview of every tracked site, and the
// framework's per-request work would cost more than the ingest itself. It answers exactly
// as the Fastify route does (CollectEndpoint decides), and leaves every other request,
// including OPTIONS and any query string, to Fastify.
//
// Its 202s are written together once the event loop has read every hit that arrived
// together (at setImmediate, right after the loop's poll phase), not one by one as each is
// decided: on a virtual machine a write that wakes a sleeping client costs several times
// the write itself, and answers written back to back wake it once. Measured with the
// benchmark's closed loop on one core, with hits screened but not stored: 9,500 requests a
// second answered one by one, 19,000 answered together.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ClientAddressRule } from "../client-address.js";
import {
  COLLECT_BODY_LIMIT,
  COLLECT_CORS,
  type CollectEndpoint,
  readsContentType,
} from "./collect-endpoint.js";

const TOO_LARGE = JSON.stringify({ message: "The request body is too large.", status: 413 });
const SERVER_ERROR = JSON.stringify({ message: "Server Error", status: 500 });

/**
 * Returns a listener that handles POST /api/event and returns false for anything else.
 * Once `closing()` says the server is shutting down, hits are still taken (they are
 * written before the process exits) but every answer closes its connection, so a tracker
 * posting back to back cannot keep the server from stopping.
 */
export function fastCollect(
  endpoint: CollectEndpoint,
  clients: ClientAddressRule,
  onError: (error: unknown) => void,
  closing: () => boolean = () => false,
) {
  const answers = new AnswerQueue(closing);
  const fail = (response: ServerResponse, error: unknown) => {
    onError(error); // as the framework would: a bare 500, the cause logged
    response
      .writeHead(500, { ...COLLECT_CORS, "content-type": "application/json; charset=utf-8" })
      .end(SERVER_ERROR);
  };
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== "POST" || request.url !== "/api/event") return false;
    const declared = Number(request.headers["content-length"] ?? 0);
    if (declared > COLLECT_BODY_LIMIT) {
      tooLarge(request, response);
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > COLLECT_BODY_LIMIT) return tooLarge(request, response);
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > COLLECT_BODY_LIMIT) return;
      let body: unknown = null;
      try {
        // A body of another type is not read: CollectEndpoint drops it as invalid.
        if (readsContentType(request.headers["content-type"])) {
          const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
          body = JSON.parse(raw.toString("utf8"));
        }
      } catch {
        // not JSON: CollectEndpoint drops it as invalid
      }
      let dropped: ReturnType<CollectEndpoint["handle"]>;
      try {
        dropped = endpoint.handle(body, {
          ip: clients.of(request),
          userAgent: request.headers["user-agent"] ?? "",
          acceptLanguage: request.headers["accept-language"] ?? "",
        });
      } catch (error) {
        return fail(response, error);
      }
      if (dropped instanceof Promise) {
        dropped.then(
          (reason) => answers.add(response, reason),
          (error: unknown) => fail(response, error),
        );
      } else {
        answers.add(response, dropped);
      }
    });
    return true;
  };
}

/** 202 answers waiting to be written together (see the header). */
class AnswerQueue {
  private responses: ServerResponse[] = [];
  private reasons: (string | null)[] = [];

  constructor(private readonly closing: () => boolean) {}

  add(response: ServerResponse, dropped: string | null): void {
    if (this.responses.length === 0) setImmediate(() => this.write());
    this.responses.push(response);
    this.reasons.push(dropped);
  }

  private write(): void {
    const { responses, reasons } = this;
    this.responses = [];
    this.reasons = [];
    const close = this.closing();
    for (let i = 0; i < responses.length; i++) {
      accepted(responses[i] as ServerResponse, reasons[i] as string | null, close);
    }
  }
}

/** A 202's headers as node takes them raw (name, value, ...): no object to build per answer. */
const ACCEPTED_HEADERS = [...Object.entries(COLLECT_CORS).flat(), "content-length", "0"];
const CLOSING_HEADERS = [...ACCEPTED_HEADERS, "connection", "close"];

function accepted(response: ServerResponse, dropped: string | null, close: boolean): void {
  const headers = close ? CLOSING_HEADERS : ACCEPTED_HEADERS;
  response.writeHead(202, dropped ? [...headers, "x-analytics-dropped", dropped] : headers).end();
}

function tooLarge(request: IncomingMessage, response: ServerResponse): void {
  if (response.headersSent) return;
  response
    .writeHead(413, {
      ...COLLECT_CORS,
      "content-type": "application/json; charset=utf-8",
      connection: "close",
    })
    .end(TOO_LARGE);
  request.resume();
}
