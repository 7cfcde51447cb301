// Runs the built `analytics` command as a separate process, as a user would: the file
// itself, so its first line gives node the flags the installed command runs with.

import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  lastLine: string;
}

/** Runs the command to its end; `input`, when given, is its standard input (else none). */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): CliResult {
  return run(CLI, args, env, input);
}

/**
 * Why the command cannot be run as a user who may not write everywhere, or null: this
 * process's user unless it is root (who may), else `nobody` through util-linux's setpriv.
 */
export function unprivilegedMissing(): string | null {
  if (process.getuid?.() !== 0) return null;
  const canRead = `require("fs").accessSync(${JSON.stringify(CLI)}, 4)`;
  const reads = spawnSync("setpriv", [...AS_NOBODY, process.execPath, "-e", canRead]);
  if (reads.error) return "running as root, and setpriv is not installed";
  return reads.status === 0 ? null : `running as root, and nobody cannot read ${CLI}`;
}

/** runCli as a user who may not write everywhere (see unprivilegedMissing). */
export function runCliUnprivileged(args: string[], env: Record<string, string> = {}): CliResult {
  if (process.getuid?.() !== 0) return runCli(args, env);
  return run("setpriv", [...AS_NOBODY, CLI, ...args], env);
}

const AS_NOBODY = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"];

function run(file: string, args: string[], env: Record<string, string>, input?: string): CliResult {
  const result = spawnSync(file, args, {
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
    env: { ...process.env, ...env },
    timeout: 30_000,
    maxBuffer: 256 * 1024 * 1024, // an export prints every event
  });
  const lines = result.stdout.trimEnd().split("\n");
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    lastLine: lines[lines.length - 1] ?? "",
  };
}

/**
 * Like runCli, without blocking this process's event loop, for tests whose own servers
 * (an SMTP sink) must keep answering while the command runs.
 */
export function runCliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(CLI, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => {
      const lines = stdout.trimEnd().split("\n");
      resolve({ status, stdout, stderr, lastLine: lines[lines.length - 1] ?? "" });
    });
  });
}

export interface RunningServer {
  process: ChildProcess;
  baseUrl: string;
  /** Everything the server printed so far. */
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `analytics serve` on a free port and resolves once it listens. `command` is how it
 * is started: the built file itself by default.
 */
export function startServer(
  args: string[],
  env: Record<string, string> = {},
  command: readonly string[] = [CLI],
): Promise<RunningServer> {
  const [file = CLI, ...before] = command;
  const child = spawn(file, [...before, "serve", "--port", "0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({
          process: child,
          baseUrl: match[1],
          output: () => output,
          stop: (signal = "SIGTERM") => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Creates a website on a running server through the API with the owner's `key` (`fields`, a
 * form body after the domain, e.g. `privacy=0`); fails the test unless it is a 201, and
 * resolves with its id.
 */
export async function createWebsite(
  baseUrl: string,
  key: string,
  domain: string,
  fields = "",
): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v1/websites`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: `domain=${encodeURIComponent(domain)}${fields ? `&${fields}` : ""}`,
  });
  const body = await response.text();
  assert.equal(response.status, 201, `website ${domain} not created: ${body}`);
  return (JSON.parse(body) as { data: { id: number } }).data.id;
}
