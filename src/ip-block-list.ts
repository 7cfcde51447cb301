// A node:net BlockList from addresses and CIDR blocks already validated (a website's
// excluded IPs, the trusted proxies): one place that reads `address[/prefix]`.

import { BlockList, isIPv4 } from "node:net";

export function ipBlockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const family = isIPv4(address) ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}
