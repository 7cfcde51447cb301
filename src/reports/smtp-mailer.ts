// Sends mail over SMTP with nodemailer (ANALYTICS_SMTP_URL). The timeouts are well below
// the report log's stale-claim age, so a send in progress is never taken for a dead one.

import nodemailer, { type Transporter } from "nodemailer";
import type { Mailer, MailMessage } from "./mailer.js";

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  /** Opens no connection: nodemailer connects on each send. */
  constructor(url: string) {
    this.transport = nodemailer.createTransport({
      url,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
    });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail(message);
  }

  close(): void {
    this.transport.close();
  }
}
