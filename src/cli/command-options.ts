// Option parsing shared by the subcommands: each declares its own flags, and every command
// also takes the storage flags that locate the data (so `--data-dir` works everywhere).

import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Config, loadConfig } from "../config.js";
import { checkDataDir } from "./data-dir-check.js";

export class UsageError extends Error {
  override name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

const STORAGE_OPTIONS: Options = { "data-dir": { type: "string" } };

/**
 * Parses `args` against the command's options plus the storage options; unknown flags, and a
 * flag given twice (parseArgs would keep the last: `--data-dir A --data-dir B` would use B
 * silently), are a UsageError.
 */
export function parseCommand(args: string[], options: Options) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: { ...STORAGE_OPTIONS, ...options }, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(parseArgsProblem(args, (error as Error).message));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once: give it once.`);
    seen.add(token.name);
  }
  return parsed.values as Record<string, string | boolean | undefined>;
}

/**
 * parseArgs' message in one line. The one for a value starting with a dash (`--port -1`)
 * takes three and names no value; it is said with the value and how to give it.
 */
function parseArgsProblem(args: string[], message: string): string {
  const ambiguous = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
  const option = ambiguous?.[1];
  if (option === undefined) return message.split("\n")[0] ?? message;
  const at = args.findIndex((arg, i) => arg === option && args[i + 1]?.startsWith("-"));
  const value = args[at + 1] ?? "-VALUE";
  return `${option} ${value}: a value starting with a dash is given as ${option}=${value}`;
}

/**
 * The configuration with the command's flags over the environment. Every command starts
 * here, so this is where a data directory no store could use is refused (a ConfigError).
 */
export function configFrom(values: Record<string, string | boolean | undefined>): Config {
  const flags: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (typeof value === "string") flags[name] = value;
  const config = loadConfig(process.env, flags);
  checkDataDir(config);
  return config;
}

export function requireString(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required.`);
  return value;
}
