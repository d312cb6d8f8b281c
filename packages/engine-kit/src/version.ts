/** `<cli> --version`, once per binary path (the answer is recorded with every job). */
import { execa } from "execa";

const cache = new Map<string, Promise<string | undefined>>();

export function detectVersion(
  file: string,
  options: { args?: string[]; env: Record<string, string>; cwd: string; parse?: (stdout: string) => string | undefined },
): Promise<string | undefined> {
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
    found.then((v) => v === undefined && cache.delete(key), () => cache.delete(key));
    cache.set(key, found);
  }
  return found;
}
