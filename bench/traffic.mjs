// Synthetic but realistic web traffic for benchmarks, fully determined by a seed: a pool of
// visitors (real public IPv4 and IPv6 addresses spread over 30 countries, real browser user
// agents, matching languages and screen sizes), Zipf-distributed pages and referrers, visits
// of several pageviews (internal referrers), a few custom events, campaigns, optionally the
// tracker's engagements and one-page visits, and timestamps over any number of days with a
// daily and weekly rhythm.
//
//   import { createTraffic, importEvents, toCollectRequest } from "./traffic.mjs";
//   const traffic = createTraffic({ seed: 7, domain: "bench.example" });
//   const hit = traffic.next();                 // one hit, as a tracker would send it
//   const { body, headers } = toCollectRequest(hit);      // for POST /api/event
//   for (const event of importEvents({ count: 1e6, days: 30, websiteId: 1, seed: 7 })) ...
//
// The same seed and options always give the same sequence.

// ---------------------------------------------------------------------------------------
// Random numbers

/** A seeded PRNG (sfc32, seeded through splitmix32): a function returning floats in [0, 1). */
export function seededRandom(seed = 1) {
  let state = typeof seed === "number" ? seed >>> 0 : hashString(String(seed));
  const splitmix = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

function hashString(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Picks an index by weight: returns a function of the PRNG. */
export function weightedIndex(weights) {
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((weight, i) => {
    total += weight;
    cumulative[i] = total;
  });
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid] > target) high = mid;
      else low = mid + 1;
    }
    return low;
  };
}

/** Zipf over n ranks: rank k (0-based) has weight 1 / (k + 1)^s. */
export function zipf(n, s = 1) {
  return weightedIndex(Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s));
}

const pick = (random, list) => list[Math.floor(random() * list.length)];
const between = (random, low, high) => low + Math.floor(random() * (high - low + 1));

// ---------------------------------------------------------------------------------------
// Reference data

/**
 * Countries with a traffic share, accepted languages, and address blocks that the bundled
 * DB-IP City data places in that country: IPv4 /16 prefixes and IPv6 /32 prefixes, none in
 * a data-centre network (src/enrich/datacenter-networks.ts), as the traffic is people's.
 */
export const COUNTRIES = [
  [
    "US",
    28,
    ["en-US,en;q=0.9", "en-US", "es-US,es;q=0.9,en;q=0.8"],
    ["73.162", "12.47", "12.200", "12.208", "12.217", "12.218"],
    ["2600:6c8e", "2600:6c9c", "2600:380", "2606:2602", "2606:8180", "2600:6c5d"],
  ],
  [
    "GB",
    7,
    ["en-GB,en;q=0.9", "en-GB,en-US;q=0.9,en;q=0.8"],
    ["2.96", "2.103", "31.54", "31.96", "51.52", "77.99"],
    ["2001:7e0", "2a00:c5c0", "2a01:5400", "2a02:230", "2a02:6b6f", "2a04:2140"],
  ],
  [
    "DE",
    7,
    ["de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", "de", "de-DE"],
    ["31.150", "37.201", "62.158", "62.224", "77.12", "79.193"],
    ["2003:ee", "2003:c4", "2003:cb", "2003:d2", "2003:e7", "2003:f5"],
  ],
  [
    "FR",
    5,
    ["fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", "fr-FR", "fr"],
    ["37.66", "37.167", "37.170", "37.174", "78.195", "78.201"],
    ["2a00:5883", "2a00:8880", "2a00:afe0", "2a01:cb00", "2a01:cb1c", "2001:666"],
  ],
  [
    "IN",
    6,
    ["en-IN,en;q=0.9,hi;q=0.8", "en-US,en;q=0.9", "hi-IN,hi;q=0.9,en;q=0.8"],
    ["110.224", "120.61", "27.61", "115.112", "182.75", "59.182"],
    ["2409:4073", "2400:3fe0", "2401:25a0", "2401:fa40", "2403:0", "2405:6040"],
  ],
  [
    "CA",
    4,
    ["en-CA,en;q=0.9", "fr-CA,fr;q=0.9,en;q=0.8"],
    ["24.222", "50.92", "69.157", "70.54", "75.157", "75.159"],
    ["2001:56a", "2604:3d08", "2001:1810", "2604:5240", "2606:4280", "2607:0"],
  ],
  [
    "NL",
    3,
    ["nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7", "nl"],
    ["77.60", "77.167", "81.207", "82.173", "83.87", "84.27"],
    ["2001:1c00", "2a02:a440", "2001:731", "2a01:380", "2a02:2a38", "2a02:a448"],
  ],
  [
    "BR",
    3,
    ["pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7", "pt-BR"],
    ["45.172", "138.255", "170.150", "177.8", "177.37", "177.73"],
    ["2804:5b8c", "2804:6740", "2804:310", "2804:7c4", "2804:b44", "2804:104c"],
  ],
  [
    "JP",
    3,
    ["ja,en-US;q=0.9,en;q=0.8", "ja-JP"],
    ["60.40", "39.110", "60.38", "126.179", "219.98", "49.109"],
    ["2400:3800", "2603:c0e2", "2001:268", "2001:2a0", "2001:2fb", "2001:302"],
  ],
  [
    "ES",
    3,
    ["es-ES,es;q=0.9,en;q=0.8", "es-ES", "ca-ES,ca;q=0.9,es;q=0.8"],
    ["5.224", "46.222", "47.63", "62.43", "77.229", "81.43"],
    ["2a0c:5a82", "2a02:9000", "2a02:9100", "2a0a:1141", "2a0f:8c00", "2001:723"],
  ],
  [
    "IT",
    3,
    ["it-IT,it;q=0.9,en-US;q=0.8,en;q=0.7", "it"],
    ["37.100", "62.211", "78.211", "79.18", "79.20", "79.24"],
    ["2a07:7e85", "2a01:2f39", "2a01:2fe1", "2a01:5940", "2a01:b600", "2a0e:436"],
  ],
  [
    "AU",
    2,
    ["en-AU,en;q=0.9", "en-GB,en;q=0.9"],
    ["49.178", "120.159", "124.170", "175.35", "49.179", "115.128"],
    ["2407:5400", "2001:8006", "2001:800d", "2001:8014", "2001:801b", "2001:8022"],
  ],
  [
    "PL",
    2,
    ["pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7", "pl"],
    ["46.170", "79.185", "79.187", "79.189", "83.3", "83.14"],
    ["2001:a48", "2001:6dd", "2001:80a", "2001:90d", "2001:a10", "2001:a17"],
  ],
  [
    "SE",
    1.5,
    ["sv-SE,sv;q=0.9,en-US;q=0.8,en;q=0.7", "sv"],
    ["2.67", "2.69", "78.72", "83.249", "83.254", "90.232"],
    ["2a01:3b8", "2a04:ae04", "2a04:ae0b", "2001:2044", "2a00:13e8", "2a02:6900"],
  ],
  [
    "CH",
    1,
    ["de-CH,de;q=0.9,en;q=0.8", "fr-CH,fr;q=0.9,en;q=0.8"],
    ["31.164", "178.199", "83.76", "83.78", "84.227", "85.5"],
    ["2603:c056", "2a00:6f20", "2001:7", "2001:e", "2001:31", "2001:38"],
  ],
  [
    "RU",
    2,
    ["ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"],
    ["62.33", "83.234", "128.71", "176.59", "176.212", "95.26"],
    ["2a00:1fa3", "2a00:79a0", "2a00:af00", "2a01:4440", "2a03:d001", "2a06:1301"],
  ],
  [
    "CN",
    1,
    ["zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"],
    ["103.32", "210.12", "210.28", "223.104", "39.144", "202.103"],
    ["240e:325", "2400:7fc0", "240e:3b9", "2409:8053", "240e:3b8", "240e:3bf"],
  ],
  [
    "MX",
    1.5,
    ["es-MX,es;q=0.9,en;q=0.8", "es-419,es;q=0.9"],
    ["187.146", "187.148", "187.153", "189.129", "189.183", "189.235"],
    ["2806:3a3", "2806:44b", "2806:413", "2806:43d", "2001:1205", "2001:1228"],
  ],
  [
    "KR",
    1,
    ["ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "ko"],
    ["59.0", "220.66", "59.4", "59.16", "112.168", "112.172"],
    ["2001:230", "2001:2d8", "2001:e70", "2001:ea8", "2001:44d3", "2001:44da"],
  ],
  [
    "ID",
    1,
    ["id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7", "en-US,en;q=0.9"],
    ["110.136", "110.139", "149.108", "149.113", "36.69", "36.80"],
    ["2407:8f80", "2001:df9", "2001:e00", "2400:1880", "2400:46e0", "2400:4ec0"],
  ],
  [
    "TR",
    1,
    ["tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7", "tr"],
    ["31.143", "46.2", "78.175", "178.243", "5.24", "78.160"],
    ["2a02:e0", "2a0b:24c0", "2001:930", "2001:1b6d", "2001:3640", "2001:3647"],
  ],
  [
    "ZA",
    0.5,
    ["en-ZA,en;q=0.9", "af-ZA,af;q=0.9,en;q=0.8"],
    ["41.24", "105.242", "196.210", "41.193", "102.182", "105.243"],
    ["2c0f:c40", "2c0f:ec08", "2c0f:ecb0", "2c0f:f030", "2001:4210", "2001:42f0"],
  ],
  [
    "NG",
    0.5,
    ["en-NG,en;q=0.9", "en-US,en;q=0.9"],
    ["160.152", "105.113", "41.184", "102.91", "154.113", "102.89"],
    ["2c0f:3b80", "2c0f:1f80", "2c0f:2300", "2c0f:26c6", "2c0f:26cd", "2c0f:32c0"],
  ],
  [
    "AR",
    0.5,
    ["es-AR,es;q=0.9,en;q=0.8", "es-419,es;q=0.9"],
    ["181.228", "201.251", "181.82", "181.98", "181.102", "181.110"],
    ["2803:5780", "2001:13b7", "2001:13d3", "2001:13e8", "2800:23", "2800:2a"],
  ],
  [
    "BE",
    1,
    ["nl-BE,nl;q=0.9,fr;q=0.8,en;q=0.7", "fr-BE,fr;q=0.9,en;q=0.8"],
    ["62.235", "80.200", "80.201", "81.241", "85.201", "87.65"],
    ["2a02:1810", "2001:222", "2001:237", "2001:23e", "2001:6ac", "2001:c0f"],
  ],
  [
    "AT",
    1,
    ["de-AT,de;q=0.9,en;q=0.8", "de"],
    ["81.217", "178.114", "91.114", "62.47", "77.118", "83.215"],
    ["2001:62e", "2001:850", "2001:857", "2001:873", "2001:896", "2001:1618"],
  ],
  [
    "UA",
    1,
    ["uk-UA,uk;q=0.9,en-US;q=0.8,en;q=0.7", "ru-UA,ru;q=0.9,uk;q=0.8"],
    ["46.200", "178.137", "5.248", "37.53", "46.211", "89.209"],
    ["2a03:7380", "2001:4130", "2a00:f50", "2a00:1228", "2a00:1688", "2a00:17a0"],
  ],
  [
    "SG",
    1,
    ["en-SG,en;q=0.9", "zh-SG,zh;q=0.9,en;q=0.8"],
    ["118.200", "121.7", "115.66", "116.14", "42.60", "116.15"],
    ["2405:fc00", "2001:fc0", "2001:a004", "2001:a00b", "2001:a012", "2001:a019"],
  ],
  [
    "IE",
    0.5,
    ["en-IE,en;q=0.9", "en-GB,en;q=0.9"],
    ["51.37", "51.171", "86.43", "86.40", "86.41", "86.42"],
    ["2001:770", "2001:777", "2001:7cb", "2001:bb4", "2a00:1ed8", "2a00:1edf"],
  ],
  [
    "NZ",
    0.5,
    ["en-NZ,en;q=0.9", "en-AU,en;q=0.9"],
    ["47.72", "118.92", "49.225", "49.227", "161.29", "121.98"],
    ["2407:7000", "2001:f50", "2001:4401", "2400:6900", "2400:7700", "2400:8c00"],
  ],
].map(([code, share, languages, ipv4, ipv6]) => ({ code, share, languages, ipv4, ipv6 }));

/** Real browser user agents with a rough share of traffic and the screen class they imply. */
export const USER_AGENTS = [
  [
    24,
    "desktop",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  ],
  [
    8,
    "desktop",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
  ],
  [
    9,
    "desktop",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  ],
  [
    6,
    "desktop",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
  ],
  [
    2,
    "desktop",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
  ],
  [
    5,
    "desktop",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  ],
  [4, "desktop", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"],
  [1.5, "desktop", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0"],
  [
    1.5,
    "desktop",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  ],
  [1, "desktop", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"],
  [
    1,
    "desktop",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
  ],
  [
    0.5,
    "desktop",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  ],
  [
    0.5,
    "desktop",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 YaBrowser/24.12.0.0 Safari/537.36",
  ],
  [
    12,
    "phone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1.1 Mobile/15E148 Safari/604.1",
  ],
  [
    4,
    "phone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
  ],
  [
    1.5,
    "phone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
  ],
  [
    10,
    "phone",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  ],
  [
    2,
    "phone",
    "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
  ],
  [
    2,
    "phone",
    "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
  ],
  [1, "phone", "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"],
  [
    0.5,
    "phone",
    "Mozilla/5.0 (Linux; U; Android 13; en-US; 2201117TY Build/TKQ1.221114.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.58 UCBrowser/13.6.2.1316 Mobile Safari/537.36",
  ],
  [
    0.5,
    "phone",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36",
  ],
  [
    0.5,
    "phone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/490.0.0.38.109;FBBV/662284227;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]",
  ],
  [
    2.5,
    "tablet",
    "Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  ],
  [
    1,
    "tablet",
    "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  ],
].map(([share, screen, userAgent]) => ({ share, screen, userAgent }));

const SCREENS = {
  desktop: [
    ["1920x1080", 30],
    ["1536x864", 10],
    ["1366x768", 9],
    ["2560x1440", 8],
    ["1440x900", 7],
    ["1280x720", 5],
    ["1680x1050", 3],
    ["3840x2160", 2],
    ["1600x900", 3],
    ["2560x1600", 2],
  ],
  phone: [
    ["390x844", 14],
    ["393x873", 10],
    ["414x896", 8],
    ["412x915", 9],
    ["375x667", 5],
    ["430x932", 6],
    ["360x800", 9],
    ["384x854", 3],
    ["360x780", 3],
  ],
  tablet: [
    ["820x1180", 8],
    ["768x1024", 8],
    ["810x1080", 5],
    ["1024x1366", 3],
    ["800x1280", 4],
  ],
};

/** Referrers of a visit's first pageview, by share; "" is direct traffic. */
const REFERRERS = [
  ["", 42],
  ["https://www.google.com/", 26],
  ["https://www.bing.com/", 3],
  ["https://duckduckgo.com/", 2],
  ["https://www.google.co.uk/", 1.5],
  ["https://www.google.de/", 1.5],
  ["https://search.yahoo.com/", 0.5],
  ["https://yandex.ru/", 0.5],
  ["https://t.co/", 3],
  ["https://www.facebook.com/", 2],
  ["https://l.facebook.com/", 1],
  ["https://www.reddit.com/", 2],
  ["https://news.ycombinator.com/", 1.5],
  ["https://www.linkedin.com/", 1.5],
  ["https://github.com/", 1.5],
  ["https://lobste.rs/", 0.3],
  ["https://www.youtube.com/", 0.8],
  ["https://chatgpt.com/", 0.8],
  ["android-app://com.google.android.gm/", 0.3],
  ["https://mail.google.com/", 0.4],
  ["https://stackoverflow.com/questions/", 0.8],
  ["https://dev.to/", 0.5],
  ["https://medium.com/", 0.6],
];

const WORDS =
  "analytics privacy cookie tracker dashboard report export import api docs guide release notes pricing team about careers contact blog story data chart funnel goal event retention install setup config server cloud self hosted open source compare alternative migrate faq security roadmap changelog community support status".split(
    " ",
  );

const CAMPAIGNS = ["spring_sale", "newsletter_2026_11", "launch", "black_friday", "retargeting", "webinar"];
const CUSTOM_EVENTS = [
  ["signup", null, null],
  ["download", null, null],
  ["outbound-link", null, null],
  ["newsletter", null, null],
  ["purchase", "49.00", "EUR"],
  ["video-play", "12", "seconds"],
];

// ---------------------------------------------------------------------------------------
// Traffic

/**
 * A stream of hits for one website. Options: seed, domain, visitors (pool size), pages
 * (distinct paths), blogs (distinct long-tail referrers), eventShare (custom events),
 * ipv6Share, visitShare (share of hits starting a new visit), concurrentVisits (visits in
 * progress at once, which sets how far apart a visit's pageviews are), engagementShare (share
 * of hits that are the tracker's engagement for the page a visit is on: sent when it is
 * hidden or left), bounceShare (share of visits of one page, left after its engagement).
 */
export function createTraffic(options = {}) {
  const {
    seed = 1,
    domain = "bench.example",
    visitors: visitorCount = 50_000,
    pages: pageCount = 400,
    blogs: blogCount = 2_000,
    eventShare = 0.03,
    ipv6Share = 0.25,
    visitShare = 0.45,
    concurrentVisits = 64,
    engagementShare = 0,
    bounceShare = 0,
  } = options;
  const random = seededRandom(`${seed}:${domain}`);

  const paths = makePaths(random, pageCount);
  const pagePick = zipf(paths.length, 1.05);
  const referrerPick = weightedIndex(REFERRERS.map(([, share]) => share));
  const blogPick = zipf(blogCount, 1.1);
  const blogs = Array.from(
    { length: blogCount },
    (_, i) =>
      `https://${pick(random, WORDS)}-${pick(random, WORDS)}${i}.${pick(random, ["com", "net", "org", "io", "dev", "blog", "de", "fr"])}/${pick(random, WORDS)}/`,
  );
  const visitors = makeVisitors(random, visitorCount, ipv6Share);
  const visitorPick = zipf(visitors.length, 0.5);

  // Visits in progress: later pageviews of a visit come from the same visitor with the
  // previous page as referrer.
  const open = [];
  // One-page visits waiting for their engagement (then over).
  const leaving = [];
  const host = () => (random() < 0.1 ? `www.${domain}` : domain);

  const startVisit = () => {
    const visitor = visitors.at(visitorPick(random));
    const source = random() < 0.04 ? blogs[blogPick(random)] : REFERRERS[referrerPick(random)][0];
    let path = paths[pagePick(random)];
    if (random() < 0.06) {
      const join = path.includes("?") ? "&" : "?";
      path += `${join}utm_source=${source ? "social" : "newsletter"}&utm_medium=link&utm_campaign=${pick(random, CAMPAIGNS)}`;
    }
    const visit = { visitor, path, left: 1 + Math.floor(-Math.log(1 - random()) * 2.2) };
    if (bounceShare > 0 && random() < bounceShare) {
      if (leaving.length >= concurrentVisits) leaving[Math.floor(random() * leaving.length)] = visit;
      else leaving.push(visit);
    } else if (open.length >= concurrentVisits) open[Math.floor(random() * open.length)] = visit;
    else open.push(visit);
    return { visitor, page: `https://${host()}${path}`, referrer: source };
  };

  /** An engagement for a one-page visit (which it ends), or for the page an open visit is on. */
  const engage = () => {
    let visit;
    if (leaving.length > 0 && (open.length === 0 || random() < 0.5)) {
      const index = Math.floor(random() * leaving.length);
      visit = leaving[index];
      leaving[index] = leaving[leaving.length - 1];
      leaving.pop();
    } else visit = open[Math.floor(random() * open.length)];
    return { visitor: visit.visitor, page: `https://${host()}${visit.path}`, referrer: "", engagement: true };
  };

  const continueVisit = () => {
    const index = Math.floor(random() * open.length);
    const visit = open[index];
    const referrer = `https://${domain}${visit.path}`;
    visit.path = paths[pagePick(random)];
    visit.left -= 1;
    if (visit.left <= 0) {
      open[index] = open[open.length - 1];
      open.pop();
    }
    return { visitor: visit.visitor, page: `https://${host()}${visit.path}`, referrer };
  };

  return {
    domain,
    /** The pool: `visitors.length`, and `visitors.at(i)` the i-th visitor. */
    visitors,
    /**
     * The next hit: { page, referrer, screenResolution, ip, userAgent, acceptLanguage, event,
     * visitorIndex } (visitorIndex: the visitor's place in `visitors`).
     */
    next() {
      const engaging = engagementShare > 0 && open.length + leaving.length > 0 && random() < engagementShare;
      const view = engaging
        ? engage()
        : open.length === 0 || random() < visitShare
          ? startVisit()
          : continueVisit();
      const { visitor } = view;
      let event = null;
      if (!engaging && random() < eventShare) {
        const [name, value, unit] = pick(random, CUSTOM_EVENTS);
        event = { name };
        if (value !== null) event.value = value;
        if (unit !== null) event.unit = unit;
      }
      return {
        page: view.page,
        referrer: view.referrer,
        screenResolution: visitor.screenResolution,
        ip: visitor.ip,
        userAgent: visitor.userAgent,
        acceptLanguage: visitor.acceptLanguage,
        event,
        engagement: engaging,
        visitorIndex: visitor.index,
      };
    },
  };
}

function makePaths(random, count) {
  const paths = ["/", "/pricing", "/features", "/docs", "/blog", "/about", "/signup", "/login", "/contact"];
  const word = () => pick(random, WORDS);
  while (paths.length < count) {
    const roll = random();
    if (roll < 0.45)
      paths.push(
        `/blog/${new Date(Date.UTC(2020, 0, 1) + between(random, 0, 2500) * 86_400_000).toISOString().slice(0, 7).replace("-", "/")}/${word()}-${word()}-${word()}`,
      );
    else if (roll < 0.75) paths.push(`/docs/${word()}/${word()}-${word()}`);
    else if (roll < 0.85) paths.push(`/products/${between(random, 100, 99_999)}`);
    else if (roll < 0.92) paths.push(`/search?q=${word()}+${word()}`);
    else if (roll < 0.96) paths.push(`/${word()}?page=${between(random, 2, 40)}`);
    else paths.push(`/${word()}/${word()}`);
  }
  return paths;
}

/**
 * The visitor pool, compact so that tens of millions of visitors fit in memory: each
 * visitor's draws are kept as small numbers in typed arrays (about 17 bytes a visitor), and
 * `at(i)` builds the visitor { index, ip, country, userAgent, acceptLanguage,
 * screenResolution } when it is needed. The draws, and so the visitors, are the same as
 * those of a pool of plain objects.
 */
function makeVisitors(random, count, ipv6Share) {
  const countryPick = weightedIndex(COUNTRIES.map((country) => country.share));
  const agentPick = weightedIndex(USER_AGENTS.map((agent) => agent.share));
  const screenPicks = Object.fromEntries(
    Object.entries(SCREENS).map(([kind, list]) => [kind, weightedIndex(list.map(([, share]) => share))]),
  );
  const countryOf = new Uint8Array(count);
  const agentOf = new Uint8Array(count);
  const ipv6 = new Uint8Array(count);
  const prefixOf = new Uint8Array(count);
  const ipParts = new Uint16Array(count * 6); // IPv6: 6 groups; IPv4: the last 2 bytes
  const languageOf = new Uint8Array(count); // 255: "en-US,en;q=0.9"; otherwise the country's
  const screenOf = new Uint8Array(count);
  const index = (list) => Math.floor(random() * list.length); // as pick()
  for (let i = 0; i < count; i++) {
    const c = countryPick(random);
    const country = COUNTRIES[c];
    const a = agentPick(random);
    countryOf[i] = c;
    agentOf[i] = a;
    if (random() < ipv6Share) {
      ipv6[i] = 1;
      prefixOf[i] = index(country.ipv6);
      for (let g = 0; g < 6; g++) ipParts[i * 6 + g] = Math.floor(random() * 65_536);
    } else {
      prefixOf[i] = index(country.ipv4);
      ipParts[i * 6] = between(random, 0, 255);
      ipParts[i * 6 + 1] = between(random, 1, 254);
    }
    languageOf[i] = random() < 0.15 ? 255 : index(country.languages);
    screenOf[i] = screenPicks[USER_AGENTS[a].screen](random);
  }
  return {
    length: count,
    at(i) {
      const country = COUNTRIES[countryOf[i]];
      const agent = USER_AGENTS[agentOf[i]];
      const at = i * 6;
      const ip = ipv6[i]
        ? `${country.ipv6[prefixOf[i]]}:${ipParts[at].toString(16)}:${ipParts[at + 1].toString(16)}:${ipParts[at + 2].toString(16)}:${ipParts[at + 3].toString(16)}:${ipParts[at + 4].toString(16)}:${ipParts[at + 5].toString(16)}`
        : `${country.ipv4[prefixOf[i]]}.${ipParts[at]}.${ipParts[at + 1]}`;
      return {
        index: i,
        ip,
        country: country.code,
        userAgent: agent.userAgent,
        acceptLanguage: languageOf[i] === 255 ? "en-US,en;q=0.9" : country.languages[languageOf[i]],
        screenResolution: SCREENS[agent.screen][screenOf[i]][0],
      };
    },
  };
}

// ---------------------------------------------------------------------------------------
// Time

const HOUR_MS = 3_600_000;

/**
 * `count` increasing timestamps (ms) over the `days` days before `end`: each hour gets a
 * share following a daily curve (busiest mid-afternoon UTC), quieter weekends, a slow growth
 * and some day-to-day noise; within an hour the instants are spread evenly with jitter.
 */
export function* timestamps({ count, days = 30, end = Date.now() - 60_000, seed = 1 }) {
  const random = seededRandom(`${seed}:time`);
  const endMs = end instanceof Date ? end.getTime() : end;
  const hours = Math.max(1, Math.round(days * 24));
  const first = endMs - hours * HOUR_MS;
  const weights = new Float64Array(hours);
  let total = 0;
  let dayNoise = 1;
  for (let h = 0; h < hours; h++) {
    const at = new Date(first + h * HOUR_MS);
    if (h % 24 === 0) dayNoise = 0.85 + random() * 0.3;
    const hour = at.getUTCHours() + at.getUTCMinutes() / 60;
    const daily = 0.35 + 0.65 * Math.exp(-((hour - 14) ** 2) / (2 * 4.5 ** 2));
    const weekly = at.getUTCDay() === 0 || at.getUTCDay() === 6 ? 0.72 : 1;
    const growth = 0.85 + 0.3 * (h / hours);
    weights[h] = daily * weekly * growth * dayNoise;
    total += weights[h];
  }
  let emitted = 0;
  let cumulative = 0;
  for (let h = 0; h < hours; h++) {
    cumulative += weights[h];
    const upTo = h === hours - 1 ? count : Math.round((count * cumulative) / total);
    const inHour = upTo - emitted;
    for (let j = 0; j < inHour; j++) {
      const offset = ((j + random()) / inHour) * HOUR_MS;
      yield Math.min(endMs, Math.floor(first + h * HOUR_MS + offset));
    }
    emitted = upTo;
  }
}

// ---------------------------------------------------------------------------------------
// Request shapes

/** The body and headers of a POST /api/event for this hit (the client IP goes in X-Forwarded-For). */
export function toCollectRequest(hit) {
  const payload = { page: hit.page, referrer: hit.referrer, screen_resolution: hit.screenResolution };
  if (hit.event) payload.event = hit.event;
  if (hit.engagement) payload.engagement = true;
  return {
    body: JSON.stringify(payload),
    headers: {
      "content-type": "text/plain;charset=UTF-8",
      "user-agent": hit.userAgent,
      "accept-language": hit.acceptLanguage,
      "x-forwarded-for": hit.ip,
    },
  };
}

/** One event of POST /api/v1/events. */
export function toImportEvent(hit, websiteId, ts) {
  const event = {
    website_id: websiteId,
    ts: new Date(ts).toISOString(),
    page: hit.page,
    referrer: hit.referrer,
    screen_resolution: hit.screenResolution,
    ip: hit.ip,
    user_agent: hit.userAgent,
    accept_language: hit.acceptLanguage,
  };
  if (hit.event) event.event = hit.event;
  if (hit.engagement) event.engagement = true;
  return event;
}

/**
 * `count` import events of one website over `days` days ending at `end`, in time order.
 * Other options go to createTraffic (domain, visitors, pages, ...).
 */
export function* importEvents({ count, days = 30, end, websiteId = 1, seed = 1, ...traffic }) {
  const stream = createTraffic({ seed, ...traffic });
  for (const ts of timestamps({ count, days, end, seed })) yield toImportEvent(stream.next(), websiteId, ts);
}

/** Groups an iterable into arrays of at most `size`. */
export function* inBatches(iterable, size) {
  let batch = [];
  for (const item of iterable) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
