// Numbers for strings the embedded store keeps once in a table (places, text_values): dense
// from 1 in order of first appearance, so the rows that refer to them pack into a few bits.
// The caller stores new ones with its batch, or forgets them if the batch is not committed.

export class StringNumbers {
  private readonly numbers: Map<string, number>;
  private added: [string, number][] = [];

  /** From the table's (string, number) rows, numbered 1..n. */
  constructor(rows: Iterable<[string, number]>) {
    this.numbers = new Map(rows);
  }

  /** The number of `text`, numbering it if it is new. */
  numberOf(text: string): number {
    let number = this.numbers.get(text);
    if (number === undefined) {
      number = this.numbers.size + 1;
      this.numbers.set(text, number);
      this.added.push([text, number]);
    }
    return number;
  }

  /** The strings numbered since the last call, for the caller to store. */
  takeAdded(): [string, number][] {
    const added = this.added;
    this.added = [];
    return added;
  }

  /** Takes back the numbers of `added` (the last taken), whose batch was not committed. */
  forget(added: readonly [string, number][]): void {
    for (const [text] of added) this.numbers.delete(text);
  }
}
