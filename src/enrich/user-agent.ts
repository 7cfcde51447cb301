// Classifies a user agent into the contract's browser family, operating system and device
// type. ua-parser-js (v1, MIT) does the parsing; the tables below name the browsers and
// systems it misses by their own tokens, fold its many names into families (Mobile Safari
// -> Safari, Chrome WebView -> Chrome, Mac OS -> macOS) so a website's top lists are not
// split by variants, and correct the few claims it takes at face value. Parses are cached:
// real traffic repeats a small set of user agents. bench/ua-quality.mjs measures agreement
// with other parsers' labels.

import { UAParser } from "ua-parser-js";
import { isBot } from "./bot-filter.js";
import { RecentMap } from "./recent-map.js";

export interface UserAgentInfo {
  browser: string;
  os: string;
  device: string;
  /** isbot's verdict (or an empty user agent), cached with the rest. */
  bot: boolean;
}

// Browsers the parser reports as another (the engine or web view they embed, or nothing),
// each found by a token of its own: in-app browsers, and browsers whose user agent leads
// with their own name. A browser the parser misses is a row here.
const BROWSER_TOKENS: [RegExp, string][] = [
  [/\bGSA\/\d/, "Google App"],
  [/\bmusical_ly_|\bAppName\/(musical_ly|trill)\b/, "TikTok"],
  [/\[Pinterest\/|^Pinterest( for Android( Tablet)?)?\/\d/, "Pinterest"],
  [/\bUCWEB|\bUCBrowser\/\d|\bUC Browser\d/, "UC Browser"],
  [/\bM?QQBrowser\b/, "QQ Browser"],
  [/\bDolphin(HDCN)?\/(\d|INT)|^Dolphin \d/, "Dolphin"],
  [/\bLine\/\d/, "LINE"],
  // Facebook's apps (the app, Messenger) name themselves in a bracketed list.
  [/\[FBAN\//, "Facebook"],
  // Safari's own fetches through the system's network library.
  [/^Safari\/[\d.]+ CFNetwork\//, "Safari"],
  // Nokia's Symbian browser (S60's "Web" browser) and Sony's NetFront on PlayStations.
  [/\bBrowserNG\/\d/, "Nokia Browser"],
  [/\((PLAYSTATION 3|PSP \(PlayStation Portable\));/, "NetFront"],
];

// The systems' own WebKit browsers, where the parser names only the engine.
const SYSTEM_WEBKIT: Record<string, string> = {
  BlackBerry: "BlackBerry Browser",
  Symbian: "Nokia Browser",
};

// Matched against the parser's browser name. Variants and rebrands of one browser share a
// family; forks with their own name (Pale Moon, Vivaldi, Brave...) keep it.
const BROWSER_FAMILIES: [RegExp, string][] = [
  [/^(mobile )?safari$/i, "Safari"],
  [/^chrome( webview| headless)?$/i, "Chrome"],
  [/^firefox( focus| reality)?$|^(klar|fennec|iceweasel|firebird|phoenix)$/i, "Firefox"],
  [/^edge$/i, "Edge"],
  [/^opera( mini| mobi| tablet| gx| touch| coast)?$/i, "Opera"],
  [/^samsung internet$/i, "Samsung Internet"],
  [/^(ie|iemobile)$/i, "Internet Explorer"],
  [/^yandex$/i, "Yandex Browser"],
  [/^ucbrowser$/i, "UC Browser"],
  [/^qqbrowser(lite)?$/i, "QQ Browser"],
  [/^gsa$/i, "Google App"],
  [/^webkit$/i, "WebKit"],
  [/^palemoon$/i, "Pale Moon"],
  [/^line$/i, "LINE"],
  [/^linkedin$/i, "LinkedIn"],
  [/^kakaotalk$/i, "KakaoTalk"],
  [/^naver$/i, "Naver"],
  [/^360$/, "360 Browser"],
  [/^nokiabrowser$/i, "Nokia Browser"],
];

const OS_FAMILIES: [RegExp, string][] = [
  [/^mac os/i, "macOS"],
  [/^ios$/i, "iOS"],
  [/^android/i, "Android"],
  [/^windows (phone|mobile)/i, "Windows Phone"],
  [/^windows/i, "Windows"],
  [/^chromium os$/i, "Chrome OS"],
  [
    /^(linux|[kxl]?ubuntu|debian|fedora|mint|arch|gentoo|suse|opensuse|red ?hat|centos|mandriva|mageia|slackware|manjaro|pclinuxos|zenwalk|linpus|raspbian|deepin|elementary|sabayon|linspire|vectorlinux|gnu)/i,
    "Linux",
  ],
  // HarmonyOS NEXT identifies itself by its open-source base.
  [/^(harmonyos|openharmony)$/i, "HarmonyOS"],
  [/^kaios$/i, "KaiOS"],
  [/^playstation$/i, "PlayStation"],
  [/^nintendo$/i, "Nintendo"],
  [/^xbox$/i, "Xbox"],
  [/^tizen$/i, "Tizen"],
  [/^webos$/i, "webOS"],
  [/^(blackberry|rim tablet os)$/i, "BlackBerry"],
  [/bsd$|^dragonfly$/i, "BSD"],
  [/solaris$/i, "Solaris"],
];

// Systems the parser misses or takes for another, each found by a token of its own, before
// the parser is asked. A system the parser misses is a row here.
const OS_TOKENS: [RegExp, string][] = [
  // Some KaiOS phones also say "Android", which the parser matches first.
  [/\bKAIOS\//i, "KaiOS"],
  // Amazon's Silk runs on Fire tablets (an Android), whose desktop mode claims a Mac or Linux.
  [/\bSilk\/\d/, "Android"],
  // UC Browser's own user agents: "(Linux; U; Adr 4.2.2; ...)", "(iOS; U; iPh OS 7_0_4; ...)".
  [/^UCWEB\/[\d.]+ \(Linux; U; Adr \d/, "Android"],
  [/^UCWEB\/[\d.]+ \(iOS;/, "iOS"],
  [/^UCWEB\/[\d.]+ \(Windows; U; wds \d/, "Windows Phone"],
  // Apps on an iPhone, iPad or iPod whose user agent says "like Mac OS X" without "iPhone OS".
  [/^Mozilla\/5\.0 \((iPhone|iPad|iPod( touch)?);/, "iOS"],
  // A Mac's system fetches (CFNetwork on Darwin) name its processor; iOS devices' do not.
  [/\bCFNetwork\/[\d.]+ Darwin\/[\d.]+ \((i386|x86_64)\)/, "macOS"],
  // Symbian phones that give only their S60 platform.
  [/\(S60V\d;|\bS60\/\d/, "Symbian"],
  // UC Browser's Java-era format on Android: "JUC (Linux; U; 2.3.6; ...)".
  [/^JUC ?\(Linux; ?U; ?\d/, "Android"],
  // Windows Phone 7's Internet Explorer in desktop mode claims Windows NT.
  [/\b(XBLWP7|ZuneWP7)\b/, "Windows Phone"],
  // Citrix's app on Chrome OS gives the system's build after "X11; Windows".
  [/\(X11; Windows [^)]*\).*\bCitrixChromeApp\b/, "Chrome OS"],
  [/\b(Free|Open|Net)BSD\b/, "BSD"],
];

// Systems named by a token the parser does not read, asked only when it found none: apps'
// own formats ("Deezer/4.8.2 (iOS; 7.1; ...)", "server-bag [iPhone OS,6.1,...]"), Windows as
// "Win NT 5.0", "Win16" or "WindowsCE", and Macs' Darwin with its processor.
const OS_FALLBACK_TOKENS: [RegExp, string][] = [
  [/\b(iOS|iPhone|iPad|iPod)\b/, "iOS"],
  [/\bWin(dows|16|32|64|NT)\b|\bWindows ?CE\b|\bMicrosoft_Windows/i, "Windows"],
  [/\bDarwin\/[\d.]+\W+(i386|x86_64)\b/, "macOS"],
];

// Everything ua-parser-js v1 can report; desktops have no type and are inferred below.
const DEVICE_TYPES: Record<string, string> = {
  mobile: "mobile",
  tablet: "tablet",
  smarttv: "tv",
  console: "console",
  wearable: "wearable",
  embedded: "embedded",
};

// Devices the parser takes for a desktop, each found by a token of its own: smart TVs
// whose browser says only Linux. A device the parser misses is a row here.
const DEVICE_TOKENS: [RegExp, string][] = [
  [/\bVIDAA\b/, "tv"], // Hisense
  [/\bVIZIO SmartCast\b/, "tv"],
  [/^HbbTV\/\d/, "tv"], // the European broadcast standard's own browser
];

const TOUCH_OSES = new Set(["Android", "iOS", "HarmonyOS"]);
const PHONE_OSES = new Set(["Windows Phone", "KaiOS", "BlackBerry", "Symbian", "Series40"]);
const DESKTOP_OSES = new Set(["Windows", "macOS", "Linux", "Chrome OS", "BSD", "Solaris", "Haiku"]);
// Apple ships Safari on its own systems and once did on Windows; a "Safari" token anywhere
// else comes from another WebKit or Blink browser (GNOME Web, TVs, consoles). An unknown
// OS gives no reason to doubt the claim.
const SAFARI_OSES = new Set(["macOS", "iOS", "Windows", ""]);

// The parser reads only this many characters, so longer keys would waste cache memory.
const MAX_USER_AGENT_LENGTH = 500;
const CACHE_SIZE = 20_000; // at least the 10,000 used last (recent-map.ts)

export class UserAgentClassifier {
  private readonly cache: RecentMap<string, UserAgentInfo>;

  constructor(maxEntries = CACHE_SIZE) {
    this.cache = new RecentMap(maxEntries);
  }

  get size(): number {
    return this.cache.size;
  }

  classify(userAgent: string): UserAgentInfo {
    const key = userAgent.slice(0, MAX_USER_AGENT_LENGTH);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const info = classifyUserAgent(key);
    this.cache.set(key, info); // the agents in use stay cached, memory stays bounded
    return info;
  }
}

export function classifyUserAgent(userAgent: string): UserAgentInfo {
  const ua = spaced(userAgent.slice(0, MAX_USER_AGENT_LENGTH));
  if (ua.trim() === "") return { browser: "", os: "", device: "", bot: true };
  const parsed = new UAParser(ua).getResult();
  const os =
    OS_TOKENS.find(([token]) => token.test(ua))?.[1] ||
    family(parsed.os.name, OS_FAMILIES) ||
    (OS_FALLBACK_TOKENS.find(([token]) => token.test(ua))?.[1] ?? "");
  return {
    browser: browserFamily(parsed.browser.name, os, ua),
    os,
    device: deviceType(parsed.device.type, os, ua),
    bot: isBot(ua),
  };
}

/**
 * A user agent whose spaces were written as `+` (form-encoded by a proxy or an app's HTTP
 * library: "Mozilla/5.0+(iPhone;+CPU+iPhone+OS+9_3_1+like+Mac+OS+X)+..."), spaced again;
 * no browser sends one without a space.
 */
function spaced(ua: string): string {
  return ua.includes(" ") || !ua.includes("+(") ? ua : ua.replace(/\+/g, " ");
}

function browserFamily(name: string | undefined, os: string, ua: string): string {
  for (const [token, browser] of BROWSER_TOKENS) if (token.test(ua)) return browser;
  const browser = family(name, BROWSER_FAMILIES);
  // A bare WebKit engine on Apple systems is a Safari web view (all iOS browsers are).
  if (browser === "WebKit" && (os === "iOS" || os === "macOS")) return "Safari";
  // Another WebKit, or Safari's name elsewhere: the system's own browser where it has one.
  if (browser === "WebKit" || (browser === "Safari" && !SAFARI_OSES.has(os)))
    return SYSTEM_WEBKIT[os] ?? "WebKit";
  return browser;
}

function family(name: string | undefined, table: [RegExp, string][]): string {
  if (!name) return "";
  for (const [pattern, familyName] of table) if (pattern.test(name)) return familyName;
  // An unlisted name is still worth showing; drop variant words the parser adds and give
  // names copied from a lowercase user agent a capital.
  const cleaned = name.replace(/^Mobile |( Mobile| WebView| Headless)$/g, "");
  return cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
}

function deviceType(type: string | undefined, os: string, ua: string): string {
  for (const [token, device] of DEVICE_TOKENS) if (token.test(ua)) return device;
  if (type) return DEVICE_TYPES[type] ?? "";
  // Phones say "Mobile" (Opera "Mobi"; Opera Mini runs almost only on phones); touch devices
  // without it are tablets.
  if (TOUCH_OSES.has(os)) return /mobi|opera mini/i.test(ua) ? "mobile" : "tablet";
  if (PHONE_OSES.has(os)) return "mobile";
  if (DESKTOP_OSES.has(os)) return "desktop";
  return "";
}
