// Headers on every stats-page response: no script at all, styles only from our own
// assets, no framing, no referrer sent to the sites the statistics link to. The referrer
// (and so the Origin of a form post) is kept for our own pages: under `no-referrer` a
// browser sends `Origin: null`, which the cross-site check of forms (form-origin.ts) refuses.

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};
