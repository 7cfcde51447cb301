// Whether `serve` can listen on its host and port, asked before it opens any store: a port
// another server holds is then one line naming it (exit 2), not a stack trace after the
// storage was created or migrated for nothing. The same words if listening fails anyway.

import net from "node:net";
import { ConfigError } from "../config.js";

/** Binds host:port for a moment; throws a ConfigError saying why it cannot be used. */
export async function checkCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return; // the system picks a free port
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host, port }, resolve);
    });
  } catch (error) {
    throw listenError(error, host, port);
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** The message for a failure to listen on host:port, or the error itself when it is not about them. */
export function listenError(error: unknown, host: string, port: number): Error {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case "EADDRINUSE":
      return new ConfigError(
        `Cannot listen on ${where}: port ${port} is in use (another server?). Choose another with --port or ANALYTICS_PORT.`,
      );
    case "EACCES":
      return new ConfigError(`Cannot listen on ${where}: port ${port} needs privileges this user lacks.`);
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new ConfigError(`Cannot listen on ${where}: ${host} is not an address of this machine.`);
    default:
      return error as Error;
  }
}
