// Referrer spam: hits whose referrer host is on a list of spammers' domains (a host matches
// its domain and every subdomain of it). The list is the installation's own, a file named by
// ANALYTICS_REFERRER_SPAM (one host a line, `#` comments), read once at start; no list is
// shipped yet, as no maintained public one installs from a package registry here.

import fs from "node:fs";

export class ReferrerSpamList {
  private constructor(private readonly hosts: ReadonlySet<string>) {}

  static readonly none = new ReferrerSpamList(new Set());

  /** The hosts of a list file: one a line, lowercased, without `www.`, comments and blanks skipped. */
  static fromFile(file: string): ReferrerSpamList {
    const hosts = new Set<string>();
    for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
      const host = line
        .replace(/#.*/, "")
        .trim()
        .toLowerCase()
        .replace(/^www\./, "")
        .replace(/\.$/, "");
      if (host !== "") hosts.add(host);
    }
    return new ReferrerSpamList(hosts);
  }

  get size(): number {
    return this.hosts.size;
  }

  /** Whether `host` (as referrerHost gives it) or a domain it belongs to is listed. */
  has(host: string): boolean {
    if (host === "" || this.hosts.size === 0) return false;
    for (let at = -1; ; ) {
      if (this.hosts.has(host.slice(at + 1))) return true;
      at = host.indexOf(".", at + 1);
      if (at < 0) return false;
    }
  }
}
