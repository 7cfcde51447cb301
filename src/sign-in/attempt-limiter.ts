// Limits sign-in attempts (a stats page's password or key today; an owner's email and
// password would use it the same way) per client address and target, and per address
// across all targets. Over either limit every attempt is refused, right or wrong, until the
// window ends. In memory: each server counts its own.

import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import type { Clock } from "../clock.js";
import { FailureTable } from "./failure-table.js";

export interface AttemptRules {
  /** Wrong attempts one address may make on one target in a window. */
  perTarget: number;
  /** Wrong attempts one address may make on all targets together in a window. */
  perAddress: number;
  /** The window, from an address's (or pair's) first wrong attempt. */
  windowMs: number;
  /** Entries each table may hold (pairs; addresses); see FailureTable for what goes first. */
  capacity: number;
}

export const MAX_WRONG_ATTEMPTS = 10;
/** Enough for someone who mistypes on a few pages; one guesser spraying many pages is stopped. */
export const MAX_WRONG_PER_ADDRESS = 30;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;

/** Stats pages: 10 wrong attempts per page and 30 in all per address every 15 minutes. */
export const STATS_PAGE_RULES: AttemptRules = {
  perTarget: MAX_WRONG_ATTEMPTS,
  perAddress: MAX_WRONG_PER_ADDRESS,
  windowMs: ATTEMPT_WINDOW_MS,
  // Two tables of at most 50,000 short keys each (targets over 64 characters are hashed):
  // about 20 MB at worst.
  capacity: 50_000,
};

const MAX_TARGET_LENGTH = 64;

export class AttemptLimiter {
  private readonly pairs: FailureTable;
  private readonly addresses: FailureTable;

  constructor(
    private readonly clock: Clock,
    rules: AttemptRules = STATS_PAGE_RULES,
  ) {
    this.pairs = new FailureTable(rules.perTarget, rules.windowMs, rules.capacity);
    this.addresses = new FailureTable(rules.perAddress, rules.windowMs, rules.capacity);
  }

  /**
   * Starts an attempt of `address` on `target`. Gives the seconds to wait when it is refused
   * (nothing is counted), else 0: the attempt then counts as wrong until `succeeded` or
   * `withdrawn` says otherwise, so attempts sent together cannot all pass before the first
   * is counted. When a table is full of live locks, a new address or pair is refused too.
   */
  begin(address: string, target: string): number {
    const now = this.clock.now().getTime();
    const source = sourceOf(address);
    const pair = pairKey(source, target);
    const locked = Math.max(this.addresses.lockedFor(source, now), this.pairs.lockedFor(pair, now));
    if (locked > 0) return seconds(locked);
    if (!this.addresses.hasRoom(source, now)) return seconds(this.addresses.fullFor(now));
    if (!this.pairs.hasRoom(pair, now)) return seconds(this.pairs.fullFor(now));
    this.addresses.count(source, now);
    this.pairs.count(pair, now);
    return 0;
  }

  /** The attempt was right: the pair starts afresh; the address's other failures still count. */
  succeeded(address: string, target: string): void {
    const now = this.clock.now().getTime();
    const source = sourceOf(address);
    this.pairs.forget(pairKey(source, target));
    this.addresses.uncount(source, now);
  }

  /** The attempt was never checked (the server was too busy): it does not count. */
  withdrawn(address: string, target: string): void {
    const now = this.clock.now().getTime();
    const source = sourceOf(address);
    this.pairs.uncount(pairKey(source, target), now);
    this.addresses.uncount(source, now);
  }

  /** Entries held, pairs and addresses: at most twice the rules' capacity. */
  get tracked(): number {
    return this.pairs.size + this.addresses.size;
  }
}

/**
 * Who is counted: an IPv4 address, or an IPv6 address's /64 network, since one subscriber
 * or machine usually has a whole /64 to pick addresses from.
 */
export function sourceOf(address: string): string {
  const ip = address.split("%", 1)[0] ?? "";
  if (!isIPv6(ip)) return address;
  if (ip.startsWith("::ffff:") && ip.includes(".")) return ip.slice(7);
  const [head = "", tail] = ip.split("::");
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const start = groups(head);
  const all =
    tail === undefined
      ? start
      : [...start, ...Array<string>(8 - start.length - groups(tail).length).fill("0"), ...groups(tail)];
  return `${all
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

function pairKey(source: string, target: string): string {
  const short =
    target.length <= MAX_TARGET_LENGTH ? target : createHash("sha256").update(target).digest("base64url");
  return `${source}\n${short}`;
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
