/**
 * skillrig run by a user other than root: the real CLI under `setpriv --reuid=65534` (nobody), on a copy of an
 * example in a world-readable temp folder, at every level the machine has. The code runs as that user (there is no
 * other uid to give it), with no capability and no_new_privs; at the weak levels the report's warnings say it could
 * change anything that user can; and no skillrig cache (probe, bytecode) is kept in that user's home, since a
 * weak-level run of that user could rewrite it (docs/sandbox.md, "Persistent state").
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableLevels, probeHost } from "@skillrig/sandbox";
import { tempDir } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const NOBODY = 65534;
const host = probeHost();
const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

/** Runs the CLI as nobody in `dir`; the report is parsed from stdout (--json). */
function asNobody(dir: string, home: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      host.setpriv as string,
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "--",
        "/usr/bin/env",
        "-i",
        `HOME=${home}`,
        "PATH=/usr/bin:/bin",
        process.execPath,
        bin,
        ...args,
      ],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
    );
  });
}

describe.runIf(host.isRoot && host.setpriv !== undefined && existsSync("/usr/bin/python3"))(
  "skillrig run by another user than root",
  () => {
    // The example and the repository must be readable by nobody; the temp folder is opened to others for it.
    const root = tempDir("non-root-");
    chmodSync(root, 0o755);
    const home = join(root, "home");
    mkdirSync(home);
    chownSync(home, NOBODY, NOBODY);
    const example = join(root, "example");
    cpSync(join(repo, "examples/oracle-log-summarizer"), example, { recursive: true });
    cpSync(join(resolve(fileURLToPath(import.meta.url), "../persistent-state"), "who_am_i.py"), join(example, "who_am_i.py"));
    writeFileSync(
      join(example, "who.task.json"),
      JSON.stringify({
        contract_version: "1.0",
        task_id: "who-am-i",
        deliverable_type: "function",
        entrypoint: "who_am_i",
        tests: [{ name: "nobody, no capability, no_new_privs", input: [], expected: [NOBODY, "0000000000000000", "1"] }],
      }),
    );
    // The CLI keeps its project state beside the config: the example folder is nobody's.
    chownSync(example, NOBODY, NOBODY);

    it.each(levels)(
      "at level %s: the example passes, the code runs as nobody without capabilities, and no cache is kept",
      async (level) => {
        const example_ = await asNobody(example, home, [
          "test",
          "task.json",
          "--deliverable",
          "correct",
          "--sandbox-level",
          level,
          "--json",
        ]);
        const report = JSON.parse(example_.stdout) as {
          summary: { passed: number; total: number };
          isolation: string;
          warnings?: string[];
        };
        expect(report.isolation, example_.stderr).toBe(level);
        expect(report.summary.passed).toBe(report.summary.total);

        const who = await asNobody(example, home, [
          "test",
          "who.task.json",
          "--deliverable",
          "who_am_i.py",
          "--sandbox-level",
          level,
          "--json",
        ]);
        const whoReport = JSON.parse(who.stdout) as { cases: Array<{ status: string; actual: unknown }>; warnings?: string[] };
        expect(whoReport.cases.map((c) => [c.status, c.actual])).toEqual([["passed", [NOBODY, "0000000000000000", "1"]]]);
        const warned = (whoReport.warnings ?? []).some((w) =>
          w.includes(
            `at level "${level}" deliverable code runs as this user (uid ${NOBODY}): it can read and change anything this user can`,
          ),
        );
        expect(warned).toBe(level !== "namespaces");

        expect(existsSync(join(home, ".cache", "skillrig"))).toBe(false);
      },
    );
  },
);
