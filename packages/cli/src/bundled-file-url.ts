/**
 * Where a module of the bundled CLI (dist/bundle/, scripts/bundle.mjs) would have been as a file of its package.
 * The bundle replaces each bundled module's `import.meta.url` with `bundledFileUrl(package, path)`, so a module that
 * finds files beside itself (a JSON Schema, a Python helper, the view's web assets, the init templates) finds them
 * where its package ships them, whatever folder the bundle's chunks are in.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Resolved from the CLI's own package: every bundled package is a dependency of it (or the CLI itself).
const require = createRequire(import.meta.url);
const packageRoots = new Map<string, string>();

/** The `file:` URL of `path` (relative to its package's root) in package `name`, as Node would have loaded it. */
export function bundledFileUrl(name: string, path: string): string {
  let root = packageRoots.get(name);
  if (root === undefined) {
    root = dirname(require.resolve(`${name}/package.json`));
    packageRoots.set(name, root);
  }
  return pathToFileURL(join(root, path)).href;
}

/** The folder of that file: what the module's `import.meta.dirname` would have been. */
export function bundledFileDir(name: string, path: string): string {
  return dirname(fileURLToPath(bundledFileUrl(name, path)));
}
