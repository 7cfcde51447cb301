// Sends a page: HTML, gzipped when the client takes it and the page is not tiny.

import { gzipSync } from "node:zlib";
import type { FastifyReply } from "fastify";
import type { Html } from "./html.js";

/** Pages of long ranges run to a few hundred kilobytes of markup that gzip shrinks tenfold. */
const COMPRESS_FROM_BYTES = 1024;

export function sendHtml(reply: FastifyReply, status: number, page: Html) {
  reply.code(status).header("content-type", "text/html; charset=utf-8").header("vary", "Accept-Encoding");
  const accepts = /\bgzip\b/.test(String(reply.request.headers["accept-encoding"] ?? ""));
  if (!accepts || page.text.length < COMPRESS_FROM_BYTES) return reply.send(page.text);
  return reply.header("content-encoding", "gzip").send(gzipSync(page.text));
}
