// Fills websites.domain_unicode for the rows that existed before the column did, in both
// engines' migration 0006: the same function as new rows go through (unicode-domain.ts).

import { type Kysely, sql } from "kysely";
import { unicodeDomain } from "../../../unicode-domain.js";

export async function backfillDomainUnicode(db: Kysely<unknown>): Promise<void> {
  // Only a name with a punycode label has a Unicode form of its own; every other domain
  // reads as it is stored, which one statement sets.
  await sql`UPDATE websites SET domain_unicode = domain`.execute(db);
  const { rows } = await sql<{ id: number | string; domain: string }>`
    SELECT id, domain FROM websites WHERE domain LIKE '%xn--%'`.execute(db);
  for (const row of rows) {
    const unicode = unicodeDomain(row.domain);
    if (unicode !== row.domain) {
      await sql`UPDATE websites SET domain_unicode = ${unicode} WHERE id = ${row.id}`.execute(db);
    }
  }
}
