// The fast `date-time` check answers exactly as ajv-formats' own, for the canonical form it
// speeds up and for everything it hands over; and the framework's validator uses it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AjvCompiler } from "@fastify/ajv-compiler";
import { AJV_OPTIONS } from "../src/api/ajv-options.js";
import { addFastDateTime } from "../src/api/date-time-format.js";
import { random } from "./support/seeded-random.js";

/** ajv-formats' check as the framework's compiler sets it up, without and with the fast path. */
function validators(): { full: (text: string) => boolean; fast: (text: string) => boolean } {
  const compile = (options: object) =>
    AjvCompiler()({}, options)({
      schema: { type: "string", format: "date-time" },
      method: "POST",
      url: "/",
      httpPart: "body",
    }) as (text: string) => boolean;
  assert.equal(AJV_OPTIONS.onCreate, addFastDateTime, "every route and the import threads use it");
  return {
    full: compile({ customOptions: {} }),
    fast: compile({ customOptions: {}, onCreate: addFastDateTime }),
  };
}

describe("date-time format", () => {
  it("agrees with ajv-formats on hand-picked edge cases", () => {
    const { full, fast } = validators();
    const cases = [
      "2026-11-21T10:00:00Z",
      "2026-11-21T10:00:00.123456Z",
      "2024-02-29T12:00:00Z",
      "2023-02-29T12:00:00Z",
      "2000-02-29T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-12-31T23:59:59Z",
      "2026-12-31T23:59:60Z",
      "2026-06-30T23:59:60.5Z",
      "2026-06-30T22:59:60Z",
      "2026-13-01T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-01-00T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T23:60:00Z",
      "2026-01-01t10:00:00z",
      "2026-01-01 10:00:00Z",
      "2026-01-01T10:00:00+02:00",
      "2026-01-01T10:00:00-0530",
      "2026-01-01T10:00:00+24:00",
      "2026-01-01T10:00:00",
      "2026-01-01T10:00Z",
      "2026-1-01T10:00:00Z",
      "2026-01-01T10:00:00.Z",
      "2026-01-01T10:00:00ZZ",
      " 2026-01-01T10:00:00Z",
      "2026-01-01T10:00:00Z\n",
      "",
      "yesterday",
    ];
    for (const text of cases) assert.equal(fast(text), full(text), JSON.stringify(text));
    assert.equal(fast("2026-11-21T10:00:00Z"), true);
    assert.equal(fast("2026-04-31T00:00:00Z"), false);
  });

  it("agrees with ajv-formats on 20,000 generated near-canonical strings", () => {
    const { full, fast } = validators();
    const next = random(11);
    const pick = <T>(options: readonly T[]): T => options[Math.floor(next() * options.length)] as T;
    /** Two digits up to `max`, a little past the valid range so both sides of each bound come up. */
    const two = (max: number) => String(Math.floor(next() * (max + 1))).padStart(2, "0");
    let valid = 0;
    for (let i = 0; i < 20_000; i++) {
      const text =
        `${pick(["2024", "2026", "1900", "2000", "0000", "999"])}-${two(13)}-${two(32)}` +
        `${pick(["T", "t", " ", "T", "T"])}${two(24)}:${two(60)}:${two(61)}` +
        `${pick(["", ".5", ".123", "."])}${pick(["Z", "Z", "z", "+01:00", "-23:59", "", "+2400"])}`;
      const expected = full(text);
      if (expected) valid += 1;
      assert.equal(fast(text), expected, text);
    }
    assert.ok(valid > 2_000, `only ${valid} valid strings generated`);
  });
});
