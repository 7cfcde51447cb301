// The outcome of normalising one text field: the normalised value, or the sentences that
// say why it is invalid (shown to the client as they are). Shared by every field rule.

export type RuleResult = { ok: true; value: string | null } | { ok: false; errors: string[] };

export const accept = (value: string | null): RuleResult => ({ ok: true, value });
export const reject = (...errors: string[]): RuleResult => ({ ok: false, errors });

/** A field rule: normalises `raw`; `label` is the field's human name for messages ("exclude ips"). */
export type FieldRule = (raw: string, label: string) => RuleResult;

/**
 * The length of a text as every limit counts it: in UTF-16 code units, as a browser counts a
 * field's maxlength (and the API's schemas their maxLength, ajv-options.ts). So a form lets
 * through what the server accepts, and the server accepts what a form lets through: counted
 * in code points, a limit of 128 took 100 emoji, which a field of maxlength 128 cuts at 64.
 */
export function codeUnits(text: string): number {
  return text.length;
}

/**
 * The characters of a text as a minimum counts them, one per code point: a password of four
 * emoji is 8 code units but 4 characters (NIST SP 800-63B counts code points). No form
 * field sets a minlength, so no browser counts it otherwise.
 */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Whether a text holds a control character (U+0000-U+001F, U+007F): no email, name or key
 * name may, and PostgreSQL cannot store a NUL at all (it answered such a name with a 500).
 */
export function hasControlCharacter(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is looked for
  return /[\u0000-\u001f\u007f]/.test(text);
}

/** The sentence of a text with a control character, the same wherever it is checked. */
export const holdsControl = (label: string) => `The ${label} must not contain control characters.`;

/**
 * A text quoted in a message, at most `max` code units: cut with "..." where longer, never
 * between the two halves of an emoji (a lone half shows as a replacement character).
 */
export function clipped(text: string, max = 60): string {
  if (codeUnits(text) <= max) return text;
  let end = max - 3;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // the first half of a pair
  return `${text.slice(0, end)}...`;
}

/** How a length is counted, in words: an emoji is 2 code units, or more (a flag is 4). */
export const LENGTH_UNIT = "characters (UTF-16 code units: an emoji counts as 2 or more)";

/** The sentence of a text over its limit, the same wherever the limit is checked. */
export const tooLong = (label: string, max: number) =>
  `The ${label} must not be greater than ${max} ${LENGTH_UNIT}.`;
