// Normalisation and validation of a website's domain: lowercased, scheme, leading `www.`
// and trailing `/` removed, internationalised names stored as punycode; then it must be a
// dotted hostname or an IPv4 address. Tracking maps a page's host to its website by this
// exact form, so the page host goes through the same function.

import { isIPv4 } from "node:net";
import { domainToASCII } from "node:url";
import { accept, type RuleResult, reject } from "../field-rule.js";

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const INVALID = "The domain must be a valid domain name such as example.com, or an IPv4 address.";

export function normaliseDomain(raw: string): RuleResult {
  let host = raw.trim().toLowerCase();
  if (host === "") return reject("The domain field is required.");
  host = host.replace(/^https?:\/\//, "");
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host))
    return reject("The domain must not use a scheme other than http or https.");
  host = host.replace(/^www\./, "").replace(/\/$/, "");
  if (/\s/.test(host)) return reject("The domain must not contain spaces.");
  if (host.includes("@")) return reject("The domain must not contain user info.");
  if (host.includes("/")) return reject("The domain must not contain a path.");
  if (/[?#]/.test(host)) return reject("The domain must not contain a query string or fragment.");
  if (host.includes(":")) return reject("The domain must not contain a port.");
  if (isIPv4(host)) return accept(host);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any character outside ASCII means an internationalised name
  if (/[^\x00-\x7f]/.test(host)) {
    host = domainToASCII(host);
    if (host === "") return reject(INVALID);
  }
  if (host.length > 253) return reject("The domain must not be greater than 253 characters.");
  const labels = host.split(".");
  const last = labels[labels.length - 1] ?? "";
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(last)) {
    return reject(INVALID);
  }
  return accept(host);
}
