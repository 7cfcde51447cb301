// The Node.js version the project promises (package.json `engines.node`, also in the README)
// is one every installed package accepts: a dependency that needs a newer Node would make
// `npm ci` warn (EBADENGINE) and may break at run time on the version we say is enough.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import semver from "semver";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
}

function readManifest(file: string): Manifest {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;
}

/** Every package installed under `dir` (a node_modules folder), nested ones included. */
function installedPackages(dir: string): { dir: string; manifest: Manifest }[] {
  if (!fs.existsSync(dir)) return [];
  const found: { dir: string; manifest: Manifest }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    // .bin, .package-lock.json and the like are npm's own, not packages.
    if (entry.name.startsWith(".") || !entry.isDirectory()) continue;
    const packageDir = path.join(dir, entry.name);
    if (entry.name.startsWith("@")) {
      found.push(...installedPackages(packageDir));
      continue;
    }
    const manifestFile = path.join(packageDir, "package.json");
    if (!fs.existsSync(manifestFile)) continue;
    found.push({ dir: packageDir, manifest: readManifest(manifestFile) });
    found.push(...installedPackages(path.join(packageDir, "node_modules")));
  }
  return found;
}

describe("supported Node.js version", () => {
  const range = readManifest(path.join(ROOT, "package.json")).engines?.node;

  it("is stated in package.json", () => {
    assert.equal(typeof range, "string", "package.json needs engines.node");
    assert.ok(semver.validRange(range as string), `engines.node ${String(range)} is not a version range`);
  });

  it("is accepted by every installed package", () => {
    const minimum = semver.minVersion(range as string);
    assert.ok(minimum, `engines.node ${String(range)} has no lowest version`);
    const packages = installedPackages(path.join(ROOT, "node_modules"));
    assert.ok(packages.length > 50, `expected the installed dependencies, found ${packages.length} packages`);
    const refusing = packages
      .filter(({ manifest }) => typeof manifest.engines?.node === "string")
      .filter(({ manifest }) => !semver.satisfies(minimum, manifest.engines?.node as string))
      .map(
        ({ dir, manifest }) =>
          `${manifest.name}@${manifest.version} needs node ${String(manifest.engines?.node)} (${path.relative(ROOT, dir)})`,
      );
    assert.deepEqual(refusing, [], `packages that do not run on Node.js ${minimum.version}`);
  });
});
