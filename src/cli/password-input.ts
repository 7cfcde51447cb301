// Reads a password for a command: typed twice at a terminal, without echo; else the first
// line of standard input (`echo "$PASSWORD" | analytics users reset-password ...`), so
// scripts never put it on a command line, where other users of the machine can read it.

import { UsageError } from "./command-options.js";

export async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const text = await readAll();
    // Nothing at all on standard input (`< /dev/null`) is no password, not a short one.
    if (text === "") throw new UsageError("No password: give it on the first line of standard input.");
    return firstLine(text);
  }
  const first = await prompt("Password: ");
  const again = await prompt("Password again: ");
  if (first !== again) throw new UsageError("The passwords differ.");
  return first;
}

async function readAll(): Promise<string> {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Asks on standard error, reads a line from the terminal with echo off. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    stdin.resume();
    let typed = "";
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") return done();
        if (char === "\u0003") return done(new UsageError("Cancelled."));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on("data", onData);
  });
}
