// How a statistic's stored value reads on the page: "US:United States" shows as the country,
// "" as Direct or Unknown, "Purchase:49.99:USD" as the event name with its value and unit.
// Labels are plain text; the renderer escapes them.

import type { StatName } from "../stats/catalog.js";

export interface ValueLabel {
  text: string;
  /** Secondary text shown muted after the label (a country code, an event's amount). */
  detail: string;
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

export function labelOf(stat: StatName, value: string): ValueLabel {
  if (value === "") return { text: stat === "referrer" ? "Direct / none" : "Unknown", detail: "" };
  switch (stat) {
    case "country":
    case "continent":
      return { text: afterCode(value), detail: "" };
    case "city":
      return { text: afterCode(value), detail: value.split(":", 1)[0] ?? "" };
    case "event": {
      const [name = "", amount = "", unit = ""] = value.split(":");
      return { text: name, detail: [amount, unit].filter(Boolean).join(" ") };
    }
    case "language":
      return { text: languageName(value), detail: value };
    case "device":
      return { text: value.charAt(0).toUpperCase() + value.slice(1), detail: "" };
    default:
      return { text: value, detail: "" };
  }
}

/** "US:United States" -> "United States"; a value without a code stays as it is. */
function afterCode(value: string): string {
  const at = value.indexOf(":");
  return at >= 0 && value.slice(at + 1) !== "" ? value.slice(at + 1) : value;
}

function languageName(code: string): string {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code; // not a well-formed language tag
  }
}
