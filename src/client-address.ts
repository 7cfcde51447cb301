// The one definition of "the client address" of a request, shared by the collection fast
// path, the framework (request.ip, and whether X-Forwarded-Proto/-Host are believed) and so
// by the stats pages and the API: the right-most X-Forwarded-For entry not added by a proxy
// we trust, never the left-most, which the client writes itself.

import type { IncomingMessage } from "node:http";
import { isIP, isIPv4 } from "node:net";
import type { TrustProxy } from "./config.js";
import { ipBlockList } from "./ip-block-list.js";

type TrustFunction = (address: string, hop: number) => boolean;

export class ClientAddressRule {
  /**
   * Whether the sender at `hop` (0: the socket's peer, 1: the right-most X-Forwarded-For
   * entry, ...) is a proxy we trust to tell who it forwards for. Also Fastify's `trustProxy`.
   */
  readonly trusts: TrustFunction | null;

  constructor(trust: TrustProxy) {
    if (trust.kind === "hops") {
      const { hops } = trust;
      this.trusts = (_address, hop) => hop < hops;
    } else if (trust.kind === "addresses") {
      const list = ipBlockList(trust.addresses);
      this.trusts = (address) => {
        const ip = unmapped(address);
        const family = isIP(ip);
        return family !== 0 && list.check(ip, family === 4 ? "ipv4" : "ipv6");
      };
    } else {
      this.trusts = null;
    }
  }

  /** The client address of a request (see the header); "" when the socket is already gone. */
  of(request: IncomingMessage): string {
    return this.resolve(request.socket.remoteAddress ?? "", request.headers["x-forwarded-for"]);
  }

  /**
   * Walks X-Forwarded-For from the right while the sender of the current address is trusted.
   * An entry met on that walk that is not an IP address (`not-an-ip`, `1.2.3.4:5678`, junk)
   * breaks the chain: the answer is then the socket's peer, the only address nobody wrote.
   */
  resolve(socketAddress: string, forwardedFor: string | string[] | undefined): string {
    const trusts = this.trusts;
    if (trusts === null || typeof forwardedFor !== "string") return socketAddress;
    let current = socketAddress;
    let hop = 0;
    let end = forwardedFor.length; // the unread part is forwardedFor.slice(0, end)
    while (end > 0 && trusts(current, hop)) {
      const comma = forwardedFor.lastIndexOf(",", end - 1);
      const entry = forwardedFor.slice(comma + 1, end).trim();
      end = comma;
      if (entry === "") continue; // "a,,b" or a trailing comma: no entry there
      if (isIP(entry) === 0) return socketAddress;
      current = entry;
      hop += 1;
    }
    return current;
  }

  /**
   * Before the framework reads request.ip: an X-Forwarded-For whose trusted part holds
   * something that is not an address is removed, so that request.ip (which would take the
   * junk itself) is the socket's peer, as `resolve` says.
   */
  prepare(request: IncomingMessage): void {
    const forwardedFor = request.headers["x-forwarded-for"];
    if (this.trusts === null || forwardedFor === undefined) return;
    const socketAddress = request.socket.remoteAddress ?? "";
    if (this.resolve(socketAddress, forwardedFor) === socketAddress)
      delete request.headers["x-forwarded-for"];
  }
}

/** IPv4 peers of a dual-stack socket show as `::ffff:1.2.3.4`; proxies are listed as IPv4. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") && isIPv4(address.slice(7)) ? address.slice(7) : address;
}
