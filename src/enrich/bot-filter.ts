// Bot detection for websites with exclude_bots = 1: isbot's pattern list, plus a missing
// user agent (browsers always send one).

import { isbot } from "isbot";

export function isBot(userAgent: string): boolean {
  return userAgent.trim() === "" || isbot(userAgent);
}
