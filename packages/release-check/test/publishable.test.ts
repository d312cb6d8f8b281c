/**
 * The release check's manifest checks catch what would make a package unpublishable or uninstallable, each named
 * by package and field: the checks run on a temporary copy of the repository with one manifest broken on purpose,
 * and on a manifest published with npm (which, unlike pnpm, leaves `workspace:` ranges in) to a real Verdaccio.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishFolder, registryManifest, startRegistry } from "./support/registry.js";
import { copyRepository, publishablePackages, publishedManifestProblems, sourceManifestProblems } from "./support/release.js";

const work = mkdtempSync(join(tmpdir(), "skillrig-publishable-"));
afterAll(() => rm(work, { recursive: true, force: true }));

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function editManifest(file: string, edit: (manifest: { files?: string[]; peerDependencies: Record<string, string> }) => void): void {
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  edit(manifest);
  writeJson(file, manifest);
}

describe("the manifests of a repository copy", () => {
  let copy: string;
  beforeAll(() => {
    copy = copyRepository(join(work, "repo"));
  });

  it("the repository as it is has no problem (verdict: publishable)", () => {
    expect(sourceManifestProblems(copy)).toEqual([]);
    expect(publishablePackages(copy).length).toBeGreaterThan(10);
  });

  it("a package without files and a peer range its sibling's release does not satisfy (verdict: both named)", () => {
    editManifest(join(copy, "plugins/engine-gemini/package.json"), (m) => {
      m.files = undefined; // JSON.stringify drops it
    });
    editManifest(join(copy, "packages/oracle/package.json"), (m) => {
      m.peerDependencies["@skillrig/core"] = "^0.1.0";
    });
    const core = JSON.parse(readFileSync(join(copy, "packages/core/package.json"), "utf8")).version;
    expect(sourceManifestProblems(copy)).toEqual([
      `packages/oracle/package.json (@skillrig/oracle): peerDependencies["@skillrig/core"] is "^0.1.0", which @skillrig/core ${core} (this release) does not satisfy`,
      `plugins/engine-gemini/package.json (@skillrig/engine-gemini): "files" is missing: list what the package ships (dist, README.md, ...)`,
    ]);
  });
});

describe("a manifest as the registry serves it", () => {
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  beforeAll(async () => {
    registry = await startRegistry(join(work, "registry"));
  }, 180_000);
  afterAll(async () => {
    await registry?.stop();
  });

  it("a workspace: range left in by `npm publish` (verdict: named with its field)", async () => {
    const pkg = join(work, "leaky");
    mkdirSync(pkg, { recursive: true });
    writeJson(join(pkg, "package.json"), {
      name: "@skillrig/leaky",
      version: "1.0.0",
      files: ["index.js"],
      dependencies: { "@skillrig/core": "workspace:^" },
      peerDependencies: { "@skillrig/oracle": "^1.0.0" },
    });
    writeFileSync(join(pkg, "index.js"), "export {};\n");
    await publishFolder(registry, pkg);
    const served = await registryManifest(registry, "@skillrig/leaky");
    expect(served?.["dist-tags"].latest).toBe("1.0.0");
    const released = new Map([
      ["@skillrig/core", "1.0.0"],
      ["@skillrig/oracle", "2.0.0"],
    ]);
    expect(publishedManifestProblems(served!.versions["1.0.0"]!, released)).toEqual([
      `@skillrig/leaky@1.0.0 as published: dependencies["@skillrig/core"] is "workspace:^": a workspace: range left in (publish with pnpm, which rewrites it)`,
      `@skillrig/leaky@1.0.0 as published: peerDependencies["@skillrig/oracle"] is "^1.0.0", which @skillrig/oracle 2.0.0 (this release) does not satisfy`,
    ]);
    expect(publishedManifestProblems(served!.versions["1.0.0"]!, new Map())).toHaveLength(1);
  }, 300_000);
});
