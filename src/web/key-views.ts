// The web app's API keys page: the owner's keys (the primary one, replaced with `analytics
// keys rotate`, and further named ones, full or read-only), when each was last used, a
// revoke link per further key (to a page that asks first), and the form that makes one
// (its key shown once).

import { KEY_NAME_MAX } from "../accounts/api-key-service.js";
import { type Html, html } from "../pages/html.js";
import type { ApiKeyRecord, UserRecord } from "../storage/ports.js";
import { type FormState, formFields, formNotices, ownerPage } from "./web-page.js";

/** A time as the page shows it: to the minute, UTC. */
function when(date: Date | null): string {
  return date === null ? "never" : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function keyRow(key: ApiKeyRecord): Html {
  const access = key.readOnly ? "Read-only" : "Full access";
  const name = key.name ?? "Primary key";
  return html`<li><span class="key-name">${name}</span>
<span class="site-meta">${access} · created ${when(key.createdAt)} · last used ${when(key.lastUsedAt)}</span>
${
  key.name === null
    ? html`<span class="hint">Replaced with <code>analytics keys rotate</code>.</span>`
    : html`<a class="button danger" href="/account/keys/${key.keyId}/revoke" aria-label="Revoke ${name}">Revoke</a>`
}</li>`;
}

export function keysPage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  keys: readonly ApiKeyRecord[],
  state: FormState,
  created?: { name: string; key: string },
): Html {
  return ownerPage(
    "API keys",
    stylesheet,
    user,
    formToken,
    html`${
      created
        ? html`<div class="card created"><h2>Your new key “${created.name}”</h2>
<p>It is shown only now: keep it somewhere safe. The API takes it as <code>Authorization: Bearer …</code>.</p>
<p class="key"><code>${created.key}</code></p></div>`
        : ""
    }<div class="card">
<h1>API keys</h1>
<p class="hint">A read-only key may read statistics and websites, nothing else. Revoking a key stops it at once; the others keep working.</p>
${formNotices(state)}
<ul class="sites keys">${keys.map((key) => keyRow(key))}</ul>
<h2>New key</h2>
<form method="post" action="/account/keys" novalidate class="stack">
<input type="hidden" name="csrf" value="${formToken}">
${formFields(
  [
    {
      name: "name",
      label: "Name",
      type: "text",
      autocomplete: "off",
      hint: "What it is for, e.g. Grafana.",
      maxLength: KEY_NAME_MAX,
    },
    {
      name: "access",
      label: "Access",
      type: "radio",
      options: [
        { value: "read", label: "Read-only: statistics and websites" },
        { value: "full", label: "Full access" },
      ],
    },
  ],
  state,
  false,
)}
<button type="submit">Create key</button>
</form>
</div>`,
  );
}

/** Asks before a key is revoked: a program using it stops at once, and it cannot be undone. */
export function revokeKeyPage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  key: ApiKeyRecord,
): Html {
  const name = key.name ?? "Primary key";
  return ownerPage(
    `Revoke ${name}`,
    stylesheet,
    user,
    formToken,
    html`<div class="gate card in-app">
<h1>Revoke the key “${name}”?</h1>
<p>Every program using it is refused from now on. This cannot be undone: a new key would have to be made and given to them.</p>
<form method="post" action="/account/keys/${key.keyId}/revoke">
<input type="hidden" name="csrf" value="${formToken}">
<button type="submit" class="danger">Revoke it</button>
</form>
<p><a href="/account/keys">Keep it</a></p>
</div>`,
  );
}
