/**
 * Reward hacking across runs: a deliverable graded at a weak level (named by the user) must not change anything a
 * later run trusts. The attack here rewrites the host's cache of the sample harness's bytecode
 * (plugins/deliverable-function/src/harness-bytecode.ts) with a harness that answers from the hidden tests; before
 * skillrig ran weak-level code under a per-run uid as root, every later grading at "namespaces" (the warm runtime
 * loads that cache) passed a deliverable that returns None. Through the real CLI, as root, where the machine has
 * both levels (the warm runtime and its cache are used only as root at "namespaces").
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableLevels } from "@skillrig/sandbox";
import { tempDir } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const fixtures = resolve(fileURLToPath(import.meta.url), "../persistent-state");
const available = new Set(
  availableLevels()
    .filter((l) => l.available)
    .map((l) => l.level),
);
const asRoot = process.getuid?.() === 0;

interface Graded {
  code: number;
  stdout: string;
  stderr: string;
  report?: {
    cases: Array<{ status: string }>;
    isolation: string;
    hidden_tests_reachable?: true;
    error?: { code: string; message: string; file?: string };
  };
}

function grade(dir: string, level: string, fixture: string, env: NodeJS.ProcessEnv): Promise<Graded> {
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ sandbox: { level } }));
  const deliverable = join(dir, `deliverable-${fixture}-${level}`);
  mkdirSync(deliverable, { recursive: true });
  copyFileSync(join(fixtures, `${fixture}.py`), join(deliverable, "solution.py"));
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, "test", join(dir, "task.json"), "--deliverable", deliverable, "--json", "--jobs", "1"],
      { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code) : 0;
        let report: Graded["report"];
        try {
          report = JSON.parse(stdout);
        } catch {
          report = undefined;
        }
        done({ code, stdout, stderr, report });
      },
    );
  });
}

/** sha256 of every file under the cache folder, by path. */
function cacheContents(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else out[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  if (existsSync(folder)) visit(folder);
  return out;
}

describe.runIf(asRoot && available.has("namespaces") && available.has("rlimits"))(
  "a weak-level run cannot poison later runs (root)",
  () => {
    // The machine's PATH (here a pyenv python3 under /root, which no per-run uid can run) and one whose python3
    // other users can run (/usr/bin first): the first is refused at "rlimits", the second runs as a per-run uid.
    const paths = [
      ["the machine's PATH", process.env.PATH ?? "/usr/bin:/bin"],
      ["/usr/bin first on PATH", `/usr/bin:${process.env.PATH ?? "/bin"}`],
    ] as const;
    const cases = ["rlimits", "none"].flatMap((level) => paths.map(([label, path]) => [level, label, path] as const));

    it.each(cases)(
      "a deliverable that rewrites the harness's bytecode cache at %s (%s): the cache is unchanged and a later None-returning deliverable fails at namespaces",
      async (level, _label, path) => {
        const dir = tempDir("persistent-state-");
        writeFileSync(
          join(dir, "task.json"),
          JSON.stringify({
            contract_version: "1.0",
            task_id: "poison-harness-bytecode",
            deliverable_type: "function",
            entrypoint: "solve",
            tests: [0, 1, 2].map((x) => ({ name: `case ${x}`, input: [x], expected: x * 7 + 3 })),
            limits: { timeout_ms: 20_000 },
          }),
        );
        const cache = join(dir, "bytecode-cache");
        const env = { ...process.env, PATH: path, SKILLRIG_BYTECODE_CACHE: cache, SKILLRIG_PROBE_CACHE: join(dir, "probe.json") };

        // 1. A correct grading at namespaces fills the cache (the warm runtime compiles it when the runner closes).
        const first = await grade(dir, "namespaces", "correct", env);
        expect(
          first.report?.cases.map((c) => c.status),
          first.stderr,
        ).toEqual(["passed", "passed", "passed"]);
        const before = cacheContents(cache);
        expect(Object.keys(before).some((file) => /sample_harness\.[^/]+\.pyc$/.test(file))).toBe(true);

        // 2. The attack, at a weak level the user named (which ran as uid 0 before): refused (no per-run uid can run this python3), or run as a
        //    per-run uid that can neither read the runner's /proc entries nor write the root-owned cache.
        const attack = await grade(dir, level, "poison_harness_bytecode", env);
        if (attack.report?.error) {
          // Refused by name, before any of its code ran: the file that stops the per-run uid is named.
          expect(attack.code).toBe(2);
          expect(attack.report.error.code).toBe("sandbox_unavailable");
          expect(attack.report.error.message).toMatch(/runs as an unprivileged per-run uid \(never as root\), which cannot run \//);
          expect(attack.report.error.file).toBeTruthy();
        } else {
          expect(attack.report?.isolation, attack.stderr).toBe(level);
          expect(attack.report?.hidden_tests_reachable).toBe(true);
          expect(attack.report?.cases.map((c) => c.status)).toEqual(["failed", "failed", "failed"]);
        }
        expect(cacheContents(cache)).toEqual(before);

        // 3. The verdict that matters: a deliverable that returns None, graded at namespaces with that cache, fails.
        const later = await grade(dir, "namespaces", "returns_none", env);
        expect(later.report?.isolation).toBe("namespaces");
        expect(later.report?.cases.map((c) => c.status)).toEqual(["failed", "failed", "failed"]);
      },
      240_000,
    );
  },
);
