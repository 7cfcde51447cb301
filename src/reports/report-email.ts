// Turns a user's report into the email sent to them: subject, plain text and HTML.

import type { MailMessage } from "./mailer.js";
import type { UserReport } from "./report-builder.js";
import { renderReportHtml } from "./report-html.js";
import { renderReportText } from "./report-text.js";
import { subjectOf } from "./report-wording.js";

export function composeReportEmail(report: UserReport, from: string): MailMessage {
  return {
    from,
    to: report.user.email,
    subject: subjectOf(report),
    text: renderReportText(report),
    html: renderReportHtml(report),
  };
}
