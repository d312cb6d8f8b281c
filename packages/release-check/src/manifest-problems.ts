/**
 * What would make a release's packages unpublishable or uninstallable, one line each naming the package and the
 * field: before publishing (a workspace as `changeset version` left it) and as the registry then serves them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import semver from "semver";

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  manifest: Record<string, unknown>;
}

/** packages/* and plugins/* of `root` that are not private: what a release publishes. */
export function publishablePackages(root: string): WorkspacePackage[] {
  return ["packages", "plugins"].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => join(root, group, name))
      .filter((dir) => existsSync(join(dir, "package.json")))
      .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown> }))
      .filter(({ manifest }) => manifest.private !== true)
      .map(({ dir, manifest }) => ({ name: manifest.name as string, version: manifest.version as string, dir, manifest })),
  );
}

const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

/** What a `workspace:` range becomes when pnpm publishes it against `version`. */
function publishedRange(range: string, version: string): string {
  const rest = range.slice("workspace:".length);
  if (rest === "*") return version;
  if (rest === "^" || rest === "~") return `${rest}${version}`;
  return rest;
}

/**
 * Why the public packages of a workspace (as `changeset version` left it) cannot be published as they are: no
 * `files` list (npm would publish everything, or the build would be left out), or a peer range on a sibling that
 * the sibling's version being released does not satisfy.
 */
export function sourceManifestProblems(root: string): string[] {
  const packages = publishablePackages(root);
  const versions = new Map(packages.map((pkg) => [pkg.name, pkg.version]));
  const problems: string[] = [];
  for (const pkg of packages) {
    const where = `${relative(root, pkg.dir)}/package.json (${pkg.name})`;
    const files = pkg.manifest.files;
    if (!Array.isArray(files) || files.length === 0)
      problems.push(`${where}: "files" is missing: list what the package ships (dist, README.md, ...)`);
    const peers = (pkg.manifest.peerDependencies ?? {}) as Record<string, string>;
    for (const [dep, range] of Object.entries(peers)) {
      const version = versions.get(dep);
      if (version === undefined) continue;
      const effective = range.startsWith("workspace:") ? publishedRange(range, version) : range;
      if (!semver.satisfies(version, effective)) {
        problems.push(`${where}: peerDependencies["${dep}"] is "${range}", which ${dep} ${version} (this release) does not satisfy`);
      }
    }
  }
  return problems;
}

/**
 * Why a manifest as the registry serves it cannot be installed: a `workspace:` range left in any dependency
 * field, or a range on a package of this release that the released version does not satisfy.
 */
export function publishedManifestProblems(manifest: Record<string, unknown>, released: ReadonlyMap<string, string>): string[] {
  const where = `${String(manifest.name)}@${String(manifest.version)} as published`;
  const problems: string[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries((manifest[field] ?? {}) as Record<string, string>)) {
      if (range.startsWith("workspace:")) {
        problems.push(`${where}: ${field}["${dep}"] is "${range}": a workspace: range left in (publish with pnpm, which rewrites it)`);
        continue;
      }
      const version = released.get(dep);
      if (version !== undefined && !semver.satisfies(version, range)) {
        problems.push(`${where}: ${field}["${dep}"] is "${range}", which ${dep} ${version} (this release) does not satisfy`);
      }
    }
  }
  return problems;
}

export type RegistryDocument = { "dist-tags": Record<string, string>; versions: Record<string, Record<string, unknown>> };

/** The document of `name` as the registry at `url` serves it (every version), or undefined when it has none. */
export async function registryManifest(url: string, name: string): Promise<RegistryDocument | undefined> {
  const response = await fetch(`${url}${name.replace("/", "%2f")}`);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${url} answered ${response.status} for ${name}`);
  return (await response.json()) as RegistryDocument;
}
