// RecentMap (recent-map.ts): bounded, keeps what was used recently, forgets the rest.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecentMap } from "../src/enrich/recent-map.js";

describe("RecentMap", () => {
  it("answers what was set and nothing else", () => {
    const map = new RecentMap<string, number>(10);
    map.set("a", 1);
    assert.equal(map.get("a"), 1);
    assert.equal(map.get("b"), undefined);
    map.set("a", 2);
    assert.equal(map.get("a"), 2);
    assert.equal(map.size, 1);
  });

  it("stays within its bound, keeping recently used entries and forgetting old ones", () => {
    const map = new RecentMap<number, number>(100);
    for (let i = 0; i < 1_000; i++) {
      map.set(i, i * 2);
      map.get(0); // used all along
      assert.ok(map.size <= 100, `size ${map.size} after ${i}`);
    }
    assert.equal(map.get(0), 0, "an entry in use is kept");
    assert.equal(map.get(999), 1_998, "the newest entry is kept");
    assert.equal(map.get(500), undefined, "an entry neither new nor used is forgotten");
    const kept = Array.from({ length: 1_000 }, (_, i) => map.get(i)).filter((v) => v !== undefined);
    assert.ok(kept.length >= 50, `${kept.length} entries kept`);
  });
});
