// Bot detection for websites with exclude_bots = 1: isbot's pattern list, plus a missing
// user agent (browsers always send one) and HTTP clients isbot does not know.

import { isbot } from "isbot";

// Dart's HTTP client (Flutter apps, scripts) never renders a page.
const EXTRA_CLIENTS = /\(dart:io\)/;

export function isBot(userAgent: string): boolean {
  return userAgent.trim() === "" || isbot(userAgent) || EXTRA_CLIENTS.test(userAgent);
}
