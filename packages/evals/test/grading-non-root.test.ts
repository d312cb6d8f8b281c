/**
 * Grading run by a user other than root (nobody, through setpriv, as packages/oracle/test/non-root.test.ts does):
 * the script check and the oracle run in the sandbox as that user, in bubblewrap's user namespace, and the skill's
 * evals/ stays read-only to the check even though that user owns it.
 */
import { execFile } from "node:child_process";
import { chmodSync, cpSync, existsSync, lchownSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probeHost } from "@skillrig/sandbox";
import type { Grading } from "../src/format.js";
import { copySkill, FIXTURES, tempFolder, writeOutputs } from "./grading-helpers.js";

const NOBODY = 65534;
const host = probeHost();

describe.runIf(host.isRoot && host.setpriv !== undefined && existsSync("/usr/bin/python3"))("grading as another user than root", () => {
  const { dir, cleanup } = tempFolder("evals-grading-nonroot-");
  afterAll(() => cleanup());

  it("script, file_contains and oracle assertions grade as nobody; evals/ stays read-only", async () => {
    chmodSync(dir, 0o755);
    const skillDir = copySkill(dir);
    const outputs = writeOutputs(dir, { "result.json": '{"total": 42}' });
    cpSync(resolve(import.meta.dirname, "../../../examples/solve-run-length/reference/solution.py"), join(outputs, "solution.py"));
    const runs = join(dir, "runs");
    writeOutputs(dir, {}, "runs");
    for (const path of [join(dir, "skills"), outputs, runs]) chownTree(path);
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        host.setpriv as string,
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          "--clear-groups",
          "--",
          "/usr/bin/env",
          "-i",
          `HOME=${runs}`,
          "PATH=/usr/bin:/bin",
          process.execPath,
          join(FIXTURES, "non-root-driver.mjs"),
          skillDir,
          outputs,
          runs,
        ],
        { cwd: runs, maxBuffer: 16 * 1024 * 1024 },
        (error, out, err) => done({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout: out, stderr: err }),
      );
    });
    expect(code, stderr).toBe(0);
    const g = JSON.parse(stdout) as Grading;
    expect(g.assertion_results.map((r) => [r.passed, r.graded_by])).toEqual([
      [true, "script"],
      [false, "script"],
      [true, "file_contains"],
      [true, "oracle"],
    ]);
    expect(g.assertion_results[1]!.evidence).toMatch(
      /^it exited with code \d+; output: 65534\n.*(Read-only file system|Permission denied)/s,
    );
    expect(g.assertion_results[3]!.evidence).toBe("5/5 cases passed");
    expect(readFileSync(join(skillDir, "evals/expected.json"), "utf8")).toContain("EXPECTED-VALUE-IN-EVALS");
  }, 240_000);
});

/** Gives `path` and everything under it to nobody (the test's copies only). */
function chownTree(path: string): void {
  lchownSync(path, NOBODY, NOBODY);
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry));
}
