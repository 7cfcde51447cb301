// Classifies a user agent into the contract's browser family, operating system and device
// type. ua-parser-js (v1, MIT) does the parsing; the tables below fold its many names into
// families (Mobile Safari -> Safari, Chrome WebView -> Chrome, Mac OS -> macOS) so a
// website's top lists are not split by variants. Parses are cached: real traffic repeats
// a small set of user agents.

import { UAParser } from "ua-parser-js";

export interface UserAgentInfo {
  browser: string;
  os: string;
  device: string;
}

const BROWSER_FAMILIES: [RegExp, string][] = [
  [/^(mobile )?safari|^webkit$|^safari mobile/i, "Safari"],
  [/^(mobile )?chrome( webview| headless)?$|^chrome mobile/i, "Chrome"],
  [/^(mobile )?firefox|^firefox (focus|reality|klar)|^fennec|^iceweasel/i, "Firefox"],
  [/^edge|^microsoft edge/i, "Edge"],
  [/^opera|^opr/i, "Opera"],
  [/^samsung/i, "Samsung Internet"],
  [/^ie(mobile)?$|^internet explorer/i, "Internet Explorer"],
  [/^yandex/i, "Yandex Browser"],
  [/^uc ?browser|^ucbrowser/i, "UC Browser"],
  [/^miui/i, "MIUI Browser"],
  [/^huawei/i, "Huawei Browser"],
  [/^qq ?browser|^qqbrowser/i, "QQ Browser"],
  [/^gsa$/i, "Google App"],
  [/^android browser$/i, "Android Browser"],
  [/^duckduckgo/i, "DuckDuckGo"],
  [/^whale/i, "Whale"],
  [/^silk/i, "Silk"],
  [/^facebook/i, "Facebook"],
  [/^instagram/i, "Instagram"],
];

const OS_FAMILIES: [RegExp, string][] = [
  [/^mac ?os|^macos|^os x/i, "macOS"],
  [/^ios$|^ipados/i, "iOS"],
  [/^android/i, "Android"],
  [/^windows (phone|mobile)/i, "Windows Phone"],
  [/^windows/i, "Windows"],
  [/^chrom(e|ium) ?os/i, "Chrome OS"],
  [
    /^(linux|ubuntu|kubuntu|xubuntu|lubuntu|debian|fedora|mint|arch|gentoo|suse|opensuse|red ?hat|centos|mandriva|slackware|manjaro|pclinuxos|zenwalk|deepin|elementary|gnu)/i,
    "Linux",
  ],
  [/^harmonyos/i, "HarmonyOS"],
  [/^kaios/i, "KaiOS"],
  [/^playstation/i, "PlayStation"],
  [/^nintendo/i, "Nintendo"],
  [/^tizen/i, "Tizen"],
  [/^web ?os/i, "webOS"],
  [/^blackberry|^rim tablet/i, "BlackBerry"],
  [/^freebsd|^openbsd|^netbsd/i, "BSD"],
];

const DEVICE_TYPES: Record<string, string> = {
  mobile: "mobile",
  tablet: "tablet",
  smarttv: "tv",
  console: "console",
  wearable: "wearable",
  xr: "xr",
  embedded: "embedded",
};

const CACHE_SIZE = 10_000;

export class UserAgentClassifier {
  private readonly cache = new Map<string, UserAgentInfo>();

  classify(userAgent: string): UserAgentInfo {
    const cached = this.cache.get(userAgent);
    if (cached) return cached;
    const info = classifyUserAgent(userAgent);
    if (this.cache.size >= CACHE_SIZE) this.cache.clear(); // simple bound: the hot set refills at once
    this.cache.set(userAgent, info);
    return info;
  }
}

export function classifyUserAgent(userAgent: string): UserAgentInfo {
  if (userAgent === "") return { browser: "", os: "", device: "" };
  const parsed = new UAParser(userAgent).getResult();
  const os = family(parsed.os.name, OS_FAMILIES);
  return {
    browser: family(parsed.browser.name, BROWSER_FAMILIES),
    os,
    device: deviceType(parsed.device.type, os, userAgent),
  };
}

function family(name: string | undefined, table: [RegExp, string][]): string {
  if (!name) return "";
  for (const [pattern, familyName] of table) if (pattern.test(name)) return familyName;
  // An unlisted name is still worth showing; drop variant words the parser adds.
  return name.replace(/^Mobile |( Mobile| WebView| Headless)$/g, "");
}

function deviceType(type: string | undefined, os: string, userAgent: string): string {
  if (type) return DEVICE_TYPES[type] ?? type;
  // Phones say "Mobile"; Android and iOS devices without it are tablets.
  if (os === "Android" || os === "iOS") return /mobile/i.test(userAgent) ? "mobile" : "tablet";
  if (os === "Windows Phone" || os === "KaiOS") return "mobile";
  if (os === "") return "";
  return "desktop";
}
