// The form of a stored domain that people read: a domain is kept and looked up in its ASCII
// (punycode) form, and shown, and searched, in Unicode (`xn--mnchen-3ya.de` is münchen.de).
// Pure, so the websites API, the stats pages, the reports and the metadata store agree.

import { domainToUnicode } from "node:url";

/** `domain` (ASCII, as stored) in Unicode; itself when it has nothing to decode or does not decode. */
export function unicodeDomain(domain: string): string {
  // An ASCII label may start with `xn--` and still not be valid punycode (nothing stops
  // `xn--zz.example` from being a website's domain): that gives "", and the ASCII form is
  // the only name it has.
  return domainToUnicode(domain) || domain;
}
