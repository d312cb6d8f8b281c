/**
 * The release check's view of the repository and of `pnpm release:local`: the command started exactly as a person
 * runs it (through the pinned pnpm, run with node: no global pnpm), its printed `.npmrc` line awaited, and its
 * step timings read from its output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pnpmCommand, REPO } from "../../src/release-steps.js";
import { type Started, start, userEnv } from "../../src/processes.js";

export { publishablePackages, publishedManifestProblems, sourceManifestProblems } from "../../src/manifest-problems.js";
export { copyRepository, REPO } from "../../src/release-steps.js";

/** The version of the Gemini CLI this repository tests against (engine-gemini's pinned dev dependency). */
export function geminiCliVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO, "plugins/engine-gemini/package.json"), "utf8"));
  return manifest.devDependencies["@google/gemini-cli"];
}

export interface RunningRelease {
  /** The registry it serves, from the `@skillrig:registry=` line it printed. */
  url: string;
  /** Every public package's name -> the version published, from its "published N packages" line. */
  versions: Map<string, string>;
  /** "step: seconds" for each step it timed. */
  timings: string[];
  process: Started;
}

/** `pnpm release:local --port 0` in the checkout, as its own process group (so Ctrl-C can be sent as a terminal does). */
export async function startReleaseLocal(): Promise<RunningRelease> {
  const [node, pnpm] = await pnpmCommand();
  const started = await start(node, [pnpm, "release:local", "--port", "0"], {
    cwd: REPO,
    env: userEnv(),
    ready: /^release: serving until Ctrl-C$/m,
    timeoutMs: 1_800_000,
    group: true,
  });
  const output = started.output();
  const url = output.match(/^@skillrig:registry=(\S+)$/m)?.[1];
  const published = output.match(/^release: published \d+ packages to \S+: (.+)$/m)?.[1];
  if (!url || !published) throw new Error(`pnpm release:local printed no .npmrc line or package list:\n${output}`);
  const versions = new Map(
    published.split(", ").map((entry) => {
      const at = entry.lastIndexOf("@");
      return [entry.slice(0, at), entry.slice(at + 1)] as [string, string];
    }),
  );
  const timings = [...output.matchAll(/^release: (.+) done \(([\d.]+) s\)$/gm)].map((m) => `${m[1]} ${m[2]} s`);
  return { url, versions, timings, process: started };
}
