/**
 * The CLI's version, recorded with every job. A CLI installed from npm says it in its package.json, which
 * is read without starting the CLI (gemini takes seconds to start); anything else answers `--version`,
 * asked once per binary path.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { execa } from "execa";

/** The version of the npm package whose `bin` is `file` (after symlinks), if it is one. */
export function versionFromPackage(file: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return undefined;
  }
  for (let dir = dirname(real), i = 0; i < 4 && dir !== dirname(dir); dir = dirname(dir), i++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        version?: string;
        bin?: string | Record<string, string>;
      };
      const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
      if (manifest.version && bins.some((b) => join(dir, b) === real || relative(dir, real) === b)) return manifest.version;
    } catch {
      // no package.json here
    }
  }
  return undefined;
}

const cache = new Map<string, Promise<string | undefined>>();

export function detectVersion(
  file: string,
  options: { args?: string[]; env: Record<string, string>; cwd: string; parse?: (stdout: string) => string | undefined },
): Promise<string | undefined> {
  const fromPackage = versionFromPackage(file);
  if (fromPackage) return Promise.resolve(fromPackage);
  const key = `${file}\u0000${(options.args ?? ["--version"]).join(" ")}`;
  let found = cache.get(key);
  if (!found) {
    found = execa(file, options.args ?? ["--version"], {
      env: options.env,
      extendEnv: false,
      cwd: options.cwd,
      stdin: "ignore",
      reject: false,
      timeout: 30_000,
    }).then((r) => {
      if (r.exitCode !== 0) return undefined;
      const out = String(r.stdout).trim();
      return options.parse ? options.parse(out) : (/\d+\.\d+\.\d+[\w.-]*/.exec(out)?.[0] ?? (out || undefined));
    });
    // A failed probe is not cached: the binary may be installed later in a long-lived server.
    found.then(
      (v) => v === undefined && cache.delete(key),
      () => cache.delete(key),
    );
    cache.set(key, found);
  }
  return found;
}
