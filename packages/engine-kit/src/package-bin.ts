/**
 * Finds a CLI's executable through its npm package (the pinned dev dependency), so tests and the example
 * run the exact version the lockfile names rather than whatever is on PATH.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The bin `binName` of package `pkg` as resolved from `fromUrl`, or undefined when the package is not installed. */
export function resolvePackageBin(pkg: string, binName: string, fromUrl: string): string | undefined {
  try {
    const require = createRequire(fromUrl);
    const manifestFile = require.resolve(`${pkg}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { bin?: string | Record<string, string> };
    const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[binName];
    return bin ? join(dirname(manifestFile), bin) : undefined;
  } catch {
    return undefined;
  }
}
