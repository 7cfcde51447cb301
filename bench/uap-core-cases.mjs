// uap-core's test cases (Debian's `uap-core` package: /usr/share/uap-core), read for the
// user-agent benchmarks: bot-quality.mjs and ua-quality.mjs.

import fs from "node:fs";

/** Where Debian's `uap-core` package puts its regexes and test cases. */
export const UAP_CORE_DIR = "/usr/share/uap-core";

/** The cases of a uap-core test file: each `- user_agent_string:` item with its fields (single-quoted YAML strings). */
export function uapCases(file) {
  const cases = [];
  let current = null;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const field = /^\s*(-\s+)?(\w+):\s*(.*)$/.exec(line);
    if (!field) continue;
    if (field[1]) {
      current = {};
      cases.push(current);
    }
    if (!current) continue;
    let value = field[3].trim();
    if (value.startsWith("'")) value = value.slice(1, -1).replace(/''/g, "'");
    else if (value.startsWith('"')) value = JSON.parse(value);
    current[field[2]] = value;
  }
  return cases.filter((item) => typeof item.user_agent_string === "string");
}

/** A share (0-1) as a percentage with three decimals. */
export const percent = (share) => Math.round(share * 100_000) / 1000;
