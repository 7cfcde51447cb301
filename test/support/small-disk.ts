// A real small filesystem for tests of a full disk: a tmpfs mounted on a temporary
// directory (root only; elsewhere the tests say why they are skipped), filled by a filler
// file up to a chosen amount of free space, and freed by deleting it.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./test-app.js";

export interface SmallDisk {
  /** The mounted directory. */
  dir: string;
  /** Bytes free for files on it. */
  free(): number;
  /** Writes the filler file until at most `leaveBytes` are free (0: until the disk is full). */
  fill(leaveBytes?: number): void;
  /** Deletes the filler file. */
  unfill(): void;
  /** Unmounts and removes the directory (safe to call twice). */
  remove(): void;
}

/** Mounts a tmpfs of `megabytes`; gives the reason instead when this process cannot. */
export function mountSmallDisk(megabytes: number): SmallDisk | { skip: string } {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    return { skip: "mounting a small tmpfs needs root on Linux" };
  }
  const dir = tempDir("analytics-small-disk-");
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", dir], {
    encoding: "utf8",
  });
  if (mounted.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs: ${(mounted.stderr || mounted.error?.message || "").trim()}` };
  }
  const filler = path.join(dir, "filler");
  let removed = false;
  const free = () => {
    const stats = fs.statfsSync(dir);
    return stats.bavail * stats.bsize;
  };
  return {
    dir,
    free,
    fill(leaveBytes = 0) {
      const fd = fs.openSync(filler, "a");
      try {
        let chunk = Buffer.alloc(1024 * 1024, 1);
        while (chunk.length >= 4096) {
          const room = free() - leaveBytes;
          if (room < chunk.length) {
            chunk = chunk.subarray(0, chunk.length / 2);
            continue;
          }
          try {
            fs.writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
            throw error;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    unfill() {
      fs.rmSync(filler, { force: true });
    },
    remove() {
      if (removed) return;
      removed = true;
      const result = spawnSync("umount", ["-l", dir], { encoding: "utf8" });
      if (result.status !== 0) console.error(`umount ${dir}: ${result.stderr.trim()}`);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
