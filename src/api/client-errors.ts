// What a client is told when Node's HTTP parser cannot read its request at all (a URL with
// raw non-ASCII bytes, headers larger than the parser takes, a request too slow to arrive):
// the contract's error shape, `{"message", "status"}`, as for every other error, instead of
// the framework's `{"error", "message": "Client Error", "statusCode"}`. No route has seen
// the request, so nothing else is known of it; the connection is closed after the answer.

import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/** The status and sentence for a parser's error code. */
function answerFor(code: string | undefined): [number, string] {
  if (code === "HPE_HEADER_OVERFLOW")
    return [431, "The request's headers (its URL among them) are too large to be read."];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "The request did not arrive in time."];
  return [
    400,
    "The request could not be read: its request line or headers are malformed (a URL must be percent-encoded).",
  ];
}

/** Fastify's clientErrorHandler: answers in the contract's shape, then closes the connection. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A connection reset or already answered: there is no one to tell.
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = answerFor(error.code);
  const body = JSON.stringify({ message, status });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      "Connection: close",
      "Content-Type: application/json; charset=utf-8",
      // Read by a page's script too, as every answer of the collection endpoint is.
      "Access-Control-Allow-Origin: *",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n"),
  );
}
