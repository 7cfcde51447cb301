// The outcome of normalising one text field: the normalised value, or the sentences that
// say why it is invalid (shown to the client as they are). Shared by every field rule.

export type RuleResult = { ok: true; value: string | null } | { ok: false; errors: string[] };

export const accept = (value: string | null): RuleResult => ({ ok: true, value });
export const reject = (...errors: string[]): RuleResult => ({ ok: false, errors });

/** A field rule: normalises `raw`; `label` is the field's human name for messages ("exclude ips"). */
export type FieldRule = (raw: string, label: string) => RuleResult;
