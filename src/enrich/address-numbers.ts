// IP addresses as numbers, and the binary search over sorted ranges of them that the
// geolocation index (geo-index.ts) and the data-centre networks (datacenter-ranges.ts) use:
// IPv4 as one unsigned 32-bit number, IPv6 as four 32-bit words, most significant first.

import { isIPv6 } from "node:net";

/** An IPv4 address in dotted-quad form as an unsigned 32-bit number, or -1 when it is not one. */
export function ipv4Number(address: string, from = 0, to = address.length): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = address.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1; // a leading zero (as node:net refuses it)
      octet = octet * 10 + c - 48;
      if (++digits > 3 || octet > 255) return -1;
    } else if (c === 46 && digits > 0 && dots < 3) {
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else return -1;
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : -1;
}

/** Eight 16-bit groups, reused by ipv6Words (one thread, no reentry). */
const GROUPS = new Uint16Array(8);

/** An IPv6 address as four 32-bit words, most significant first, into `words`; false when it is not one. */
export function ipv6Words(address: string, words: Uint32Array): boolean {
  if (!isIPv6(address)) return false; // what follows reads a well-formed address
  const zone = address.indexOf("%"); // a zone (fe80::1%eth0) names no other address
  const end = zone < 0 ? address.length : zone;
  const dotted = address.lastIndexOf(".", end);
  const hexEnd = dotted < 0 ? end : address.lastIndexOf(":", dotted) + 1;
  let count = 0;
  let gap = -1;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < hexEnd; i++) {
    const c = address.charCodeAt(i);
    if (c === 58) {
      if (digits > 0) GROUPS[count++] = value;
      value = 0;
      digits = 0;
      if (address.charCodeAt(i + 1) === 58) {
        gap = count;
        i++;
      }
    } else {
      value = value * 16 + (c <= 57 ? c - 48 : (c | 32) - 87);
      digits++;
    }
  }
  if (digits > 0) GROUPS[count++] = value;
  if (dotted >= 0) {
    const v4 = ipv4Number(address, hexEnd, end);
    GROUPS[count++] = v4 >>> 16;
    GROUPS[count++] = v4 & 0xffff;
  }
  if (gap >= 0) {
    const zeros = 8 - count;
    for (let j = count - 1; j >= gap; j--) GROUPS[j + zeros] = GROUPS[j] as number;
    GROUPS.fill(0, gap, gap + zeros);
  }
  for (let k = 0; k < 4; k++)
    words[k] = (((GROUPS[2 * k] as number) << 16) | (GROUPS[2 * k + 1] as number)) >>> 0;
  return true;
}

/** Whether the 128-bit number held as four words from `words[at]` is at most `key`. */
export function wordsAtMost(words: Uint32Array, at: number, key: Uint32Array): boolean {
  for (let k = 0; k < 4; k++) {
    const w = words[at + k] as number;
    if (w !== key[k]) return w < (key[k] as number);
  }
  return true;
}

/** The last index in [0, count) for which `atMost` holds (it holds for a prefix), or -1. */
export function lastAtMost(count: number, atMost: (index: number) => boolean): number {
  let low = 0;
  let high = count; // atMost holds below low, fails from high on
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (atMost(middle)) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}
