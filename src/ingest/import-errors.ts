// The 422 of an import: every invalid field of every event, in event order, the first
// MAX_LISTED_FIELDS of them with their sentences, then one `events` entry saying how many
// more there were. So a batch of 10,000 bad events answers in a few kilobytes, yet says
// how much is wrong with it.

import { type FieldErrors, ValidationError } from "../errors.js";

/** Invalid fields (`events.<index>.<field>`) listed in one answer. */
export const MAX_LISTED_FIELDS = 100;

export class ImportErrors {
  private readonly fields: FieldErrors = {};
  private listed = 0;
  private unlisted = 0;
  /** The last field counted but not listed; fields arrive event by event, never revisited. */
  private lastUnlisted = "";

  add(field: string, message: string): void {
    const messages = this.fields[field];
    if (messages) messages.push(message);
    else if (this.listed < MAX_LISTED_FIELDS) {
      this.fields[field] = [message];
      this.listed += 1;
    } else if (field !== this.lastUnlisted) {
      this.unlisted += 1;
      this.lastUnlisted = field;
    }
  }

  /** Every field of event `index` in `fields` (named relative to it; "" for the event itself). */
  addEvent(index: number, fields: FieldErrors): void {
    for (const [field, messages] of Object.entries(fields)) {
      const name = field === "" ? `events.${index}` : `events.${index}.${field}`;
      for (const message of messages) this.add(name, message);
    }
  }

  get empty(): boolean {
    return this.listed === 0;
  }

  throwIfAny(): void {
    if (this.empty) return;
    if (this.unlisted === 0) throw new ValidationError(this.fields);
    const more = `And ${this.unlisted} more invalid field${this.unlisted === 1 ? "" : "s"} (only the first ${MAX_LISTED_FIELDS} are listed).`;
    throw new ValidationError({ ...this.fields, events: [more] });
  }
}
