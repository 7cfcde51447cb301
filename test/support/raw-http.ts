// HTTP/1.1 over a plain TCP socket, byte for byte: the request exactly as written (a path
// with raw CR, non-ASCII bytes or a Host header a client library would refuse), and the
// response's status line and header lines exactly as the server wrote them.

import net from "node:net";

export interface RawResponse {
  status: number;
  /** Every header line as sent, `Name: value`. */
  headerLines: string[];
  body: string;
}

export interface RawOptions {
  /** The source address, e.g. 127.0.0.2 for a second client on the loopback interface. */
  localAddress?: string;
  /** Gives up (rejects) after this long: a bound on a hung server, not a measurement. */
  timeoutMs?: number;
}

/** Sends `request` (which should say `Connection: close`) and reads the whole answer. */
export function rawRequest(
  port: number,
  request: string | Buffer,
  options: RawOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: "127.0.0.1",
      port,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`no complete header block: ${JSON.stringify(text)}`));
      const [statusLine = "", ...headerLines] = text.slice(0, end).split("\r\n");
      resolve({ status: Number(statusLine.split(" ")[1]), headerLines, body: text.slice(end + 4) });
    });
    socket.write(request);
  });
}

/** The values of one header (case-insensitive name) in a raw response. */
export function headerValues(response: RawResponse, name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return response.headerLines
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}
