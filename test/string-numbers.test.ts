// Numbers of strings kept once in a table: dense from the loaded ones on, each string
// numbered once, and numbers taken back with an uncommitted batch are given out again.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StringNumbers } from "../src/storage/duckdb/string-numbers.js";

describe("string numbers", () => {
  it("numbers new strings after the loaded ones, once each, and takes back forgotten ones", () => {
    const numbers = new StringNumbers([
      ["/a", 1],
      ["/b", 2],
    ]);
    assert.equal(numbers.numberOf("/b"), 2);
    assert.equal(numbers.numberOf("/c"), 3);
    assert.equal(numbers.numberOf("/c"), 3);
    assert.equal(numbers.numberOf(""), 4);
    const added = numbers.takeAdded();
    assert.deepEqual(added, [
      ["/c", 3],
      ["", 4],
    ]);
    assert.deepEqual(numbers.takeAdded(), []);
    numbers.forget(added); // the batch that numbered them was not committed
    assert.equal(numbers.numberOf("/d"), 3);
    assert.equal(numbers.numberOf("/c"), 4);
    assert.deepEqual(numbers.takeAdded(), [
      ["/d", 3],
      ["/c", 4],
    ]);
  });
});
