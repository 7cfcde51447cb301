// The outcome of normalising one text field: the normalised value, or the sentences that
// say why it is invalid (shown to the client as they are). Shared by every field rule.

export type RuleResult = { ok: true; value: string | null } | { ok: false; errors: string[] };

export const accept = (value: string | null): RuleResult => ({ ok: true, value });
export const reject = (...errors: string[]): RuleResult => ({ ok: false, errors });

/** A field rule: normalises `raw`; `label` is the field's human name for messages ("exclude ips"). */
export type FieldRule = (raw: string, label: string) => RuleResult;

/**
 * The length of a text as a limit counts it: in characters (code points), as a schema's
 * maxLength does, so an emoji is one character whether the API or a form checks it.
 */
export function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The sentence of a text over its limit, the same wherever the limit is checked. */
export const tooLong = (label: string, max: number) =>
  `The ${label} must not be greater than ${max} characters.`;
