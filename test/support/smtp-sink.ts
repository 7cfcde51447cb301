// A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it accepts, can
// refuse chosen recipients, and a minimal MIME reader for what nodemailer sends (headers,
// a multipart/alternative body, quoted-printable or base64 parts).

import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:PORT`, for ANALYTICS_SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Recipients the server answers with 550 (mailbox unavailable). */
  refuse: Set<string>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refuse.has(address.address)) return callback();
      callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const envelope = session.envelope;
        received.push({
          ...parseMessage(Buffer.concat(chunks).toString("utf8")),
          envelopeFrom: envelope.mailFrom ? envelope.mailFrom.address : "",
          envelopeTo: envelope.rcptTo.map((rcpt) => rcpt.address),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end < 0 ? "" : raw.slice(end + 4) };
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = body
      .replace(/=\r\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

function parseMessage(raw: string): Omit<ReceivedMail, "envelopeFrom" | "envelopeTo"> {
  const { headers, body } = splitEntity(raw);
  const parts: Record<string, string> = {};
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get("content-type") ?? "")?.[1];
  const entities = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((part) => splitEntity(part.replace(/^\r\n/, "")))
    : [{ headers, body }];
  for (const entity of entities) {
    const type = (entity.headers.get("content-type") ?? "text/plain").split(";")[0]?.trim() ?? "";
    const content = decodeBody(
      entity.body.replace(/\r\n$/, ""),
      entity.headers.get("content-transfer-encoding"),
    );
    parts[type] = content.replace(/\r\n/g, "\n");
  }
  return {
    headers,
    subject: headers.get("subject") ?? "",
    text: parts["text/plain"] ?? "",
    html: parts["text/html"] ?? "",
  };
}
