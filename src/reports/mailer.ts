// The mailer port: what reports need to send one email. The SMTP implementation is in
// smtp-mailer.ts; tests send through it to a real local SMTP server.

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Resolves once the server accepted the message; rejects with the server's answer otherwise. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}
