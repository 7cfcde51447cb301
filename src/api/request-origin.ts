// The base of the links an answer carries when ANALYTICS_PUBLIC_URL is not set: the scheme
// and Host the client used, when the Host is a host name or an IP address with an optional
// port. Anything else (`evil.example"<>`, a userinfo, a path) would be written verbatim into
// every link, so the server's own address, as the connection reached it, is used instead.

import { isIPv4, isIPv6 } from "node:net";
import type { FastifyRequest } from "fastify";

const LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
const HOST_AND_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/;

/** Whether a Host header is a host name, an IPv4 address or a bracketed IPv6 one, with an optional port. */
export function isValidHost(host: string): boolean {
  const match = HOST_AND_PORT.exec(host);
  if (!match) return false;
  const [, name = "", port] = match;
  if (port !== undefined && Number(port) > 65535) return false;
  if (name.startsWith("[")) return isIPv6(name.slice(1, -1));
  return name.length <= 253 && (isIPv4(name) || HOST_NAME.test(name));
}

/** `scheme://host[:port]` of the request, never anything the client could make into markup or a path. */
export function requestOrigin(request: FastifyRequest): string {
  const scheme = request.protocol === "https" ? "https" : "http";
  const host = request.host;
  if (typeof host === "string" && isValidHost(host)) return `${scheme}://${host}`;
  return `${scheme}://${localAddress(request)}`;
}

/** The address and port the client connected to (IPv6 in brackets), or `localhost` without a socket. */
function localAddress(request: FastifyRequest): string {
  const { localAddress: address, localPort: port } = request.socket;
  if (!address || !port) return "localhost";
  const plain = address.startsWith("::ffff:") && isIPv4(address.slice(7)) ? address.slice(7) : address;
  return isIPv6(plain) ? `[${plain}]:${port}` : `${plain}:${port}`;
}
