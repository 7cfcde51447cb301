// The networks whose addresses count as data-centre traffic for websites with
// exclude_datacenters = 1: autonomous systems (ASNs) of cloud, VPS and dedicated-server
// hosting, where a hit comes from a rented machine (scrapers and monitors with a browser's
// user agent; commercial VPN exits, which rent there too) rather than a person's own
// connection. The ranges each ASN announces come from the bundled @ip-location-db/asn data
// (datacenter-ranges.ts); a test checks every row here still has some.
//
// Left out on purpose, as people browse through them: content-delivery networks that carry
// Apple's iCloud Private Relay and Cloudflare's WARP (Cloudflare 13335, Akamai 20940, 16625
// and 36183, Fastly 54113), transit carriers (Cogent, Level 3, NTT...), and the consumer
// arms of hosting companies (OVH Telecom 35540).
//
// A network is a row: its ASN and who runs it (the data's own name may lag a sale).

export interface DatacenterNetwork {
  asn: number;
  operator: string;
}

const rows: [number, string][] = [
  // Clouds
  [16509, "Amazon Web Services"],
  [14618, "Amazon Web Services"],
  [8987, "Amazon Web Services (Ireland)"],
  [15169, "Google"],
  [396982, "Google Cloud"],
  [19527, "Google"],
  [8075, "Microsoft Azure"],
  [31898, "Oracle Cloud"],
  [36351, "IBM Cloud"],
  [45102, "Alibaba Cloud"],
  [37963, "Alibaba Cloud (China)"],
  [132203, "Tencent Cloud"],
  [45090, "Tencent Cloud (China)"],
  [55990, "Huawei Cloud"],
  [136907, "Huawei Cloud"],
  [135377, "UCloud"],
  [138915, "Kaopu Cloud"],
  // Virtual and dedicated servers
  [14061, "DigitalOcean"],
  [393406, "DigitalOcean"],
  [63949, "Akamai Connected Cloud (Linode)"],
  [20473, "Vultr"],
  [16276, "OVHcloud"],
  [24940, "Hetzner"],
  [213230, "Hetzner Cloud"],
  [12876, "Scaleway"],
  [51167, "Contabo"],
  [40021, "Contabo (US)"],
  [141995, "Contabo (Asia)"],
  [60781, "Leaseweb (Netherlands)"],
  [28753, "Leaseweb (Germany)"],
  [16265, "Leaseweb"],
  [30633, "Leaseweb (USA)"],
  [7203, "Leaseweb (USA)"],
  [32613, "Leaseweb (Canada)"],
  [33070, "Rackspace"],
  [27357, "Rackspace"],
  [19994, "Rackspace"],
  [8560, "IONOS"],
  [8972, "Host Europe"],
  [197540, "netcup"],
  [47583, "Hostinger"],
  [26496, "GoDaddy"],
  [398101, "GoDaddy"],
  [46606, "Unified Layer (Bluehost)"],
  [36352, "ColoCrossing (HostPapa)"],
  [54290, "Hostwinds (HostPapa)"],
  [22612, "Namecheap"],
  [32244, "Liquid Web"],
  [3842, "InMotion Hosting"],
  [19318, "Interserver"],
  [29802, "Hivelocity"],
  [7979, "Servers.com"],
  [396356, "Latitude.sh"],
  [21859, "Zenlayer"],
  [199524, "Gcore"],
  [62240, "Clouvider"],
  [9009, "M247"],
  [60068, "Datacamp (CDN77)"],
  [212238, "Datacamp (CDN77)"],
  [49981, "WorldStream"],
  [50673, "Serverius"],
  [43350, "NForce Entertainment"],
  [202425, "IP Volume"],
  [3223, "Voxility"],
  [62904, "Eonix"],
  [40676, "Psychz Networks"],
  [55286, "B2 Net Solutions (ServerMania)"],
  [8100, "QuadraNet"],
  [53667, "FranTech (BuyVM)"],
  [23470, "ReliableSite"],
  [18779, "EGIHosting"],
  [35916, "Multacom"],
  [25820, "IT7 Networks"],
  [11878, "tzulo"],
  [53755, "IOFlood"],
  [46844, "Sharktech"],
  [19437, "Secured Servers"],
  [51852, "Private Layer"],
  [57169, "EDIS"],
  [42831, "UK Dedicated Servers"],
  [20860, "iomart"],
  [45671, "Servers Australia"],
  [4785, "xTom"],
  [200019, "AlexHost"],
  [9371, "SAKURA Internet"],
];

export const DATACENTER_NETWORKS: readonly DatacenterNetwork[] = rows.map(([asn, operator]) => ({
  asn,
  operator,
}));
