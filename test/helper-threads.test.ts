// Helper threads lose priority to the main thread (Linux), read back from /proc.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import { describe, it } from "node:test";
import { deprioritiseHelperThreads } from "../src/helper-threads.js";

/** Niceness of each thread of this process, by thread id. */
function threadNiceness(): Map<number, number> {
  const result = new Map<number, number>();
  for (const name of fs.readdirSync("/proc/self/task")) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      result.set(Number(name), Number(fields[16])); // field 19 of stat: nice
    } catch {
      // the thread ended while being read
    }
  }
  return result;
}

describe("helper thread priority", { skip: process.platform !== "linux" && "needs Linux's /proc" }, () => {
  it("adds the niceness to every thread but the main one", () => {
    const before = os.getPriority();
    assert.ok(threadNiceness().size > 1, "node runs helper threads");
    const stop = deprioritiseHelperThreads(5);
    stop();
    const after = threadNiceness();
    assert.equal(after.get(process.pid), before, "the main thread keeps its priority");
    for (const [tid, nice] of after) {
      if (tid !== process.pid) assert.equal(nice, Math.min(19, before + 5), `thread ${tid}`);
    }
  });

  it("does nothing with 0", () => {
    const before = threadNiceness();
    deprioritiseHelperThreads(0)();
    assert.deepEqual(threadNiceness(), before);
  });
});
