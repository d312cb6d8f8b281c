/**
 * Testing an assertion kind without an engine: `checkAssertion` says what evals.json loading would say about one
 * assertion, `gradeAssertion` grades it on outputs/ files and a final answer you give, as `skillrig eval` grades a
 * finished run (the same safe reader; for a `sandbox` kind, the runner's sandbox: pass a runner with a sandbox
 * plugin).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type AssertionObject, type AssertionVerdict, Runner, SkillrigError, type Violation } from "@skillrig/core";
import { checkAssertionObject } from "./check-assertion.js";
import type { AssertionKindPlugin } from "./define-assertion-kind.js";
import { readOutputFile } from "./output-file.js";

export interface GradeAssertionOptions {
  /** The run's outputs/ files: relative path -> content. */
  outputs?: Record<string, string | Uint8Array>;
  answer?: unknown;
  /** The skill folder (a kind's `check` resolves paths there); default a fresh empty folder. */
  skillDir?: string;
  prompt?: string;
  /** A runner to grade with (needed for a `sandbox` kind: one with a sandbox plugin); default a bare runner. */
  runner?: Runner;
}

/** The problems evals.json loading would report for `assertion` (pointers relative to it); [] when it is valid. */
export function checkAssertion(plugin: AssertionKindPlugin, assertion: AssertionObject, skillDir = process.cwd()): Violation[] {
  if (assertion.kind !== plugin.kind) return [{ pointer: "/kind", message: `is ${JSON.stringify(assertion.kind)}, not "${plugin.kind}"` }];
  return checkAssertionObject(plugin.definition, assertion, skillDir);
}

/** Grades one assertion on the given outputs and answer; throws `invalid_skill` when it fails its checks. */
export async function gradeAssertion(
  plugin: AssertionKindPlugin,
  assertion: AssertionObject,
  options: GradeAssertionOptions = {},
): Promise<AssertionVerdict> {
  const scratch = mkdtempSync(join(tmpdir(), "skillrig-assertion-"));
  try {
    const skillDir = options.skillDir ?? join(scratch, "skill");
    mkdirSync(skillDir, { recursive: true });
    const violations = checkAssertion(plugin, assertion, skillDir);
    if (violations.length > 0)
      throw new SkillrigError(
        "invalid_skill",
        `the assertion is not a valid "${plugin.kind}" assertion:\n${violations.map((v) => `  ${v.pointer || "(root)"}: ${v.message}`).join("\n")}`,
        { pointer: violations[0]?.pointer, violations },
      );
    const outputsDir = join(scratch, "outputs");
    mkdirSync(outputsDir);
    for (const [path, content] of Object.entries(options.outputs ?? {})) {
      mkdirSync(dirname(join(outputsDir, path)), { recursive: true });
      writeFileSync(join(outputsDir, path), content);
    }
    const runner = options.runner ?? new Runner({ cwd: scratch });
    const kind = plugin.definition;
    const run = {
      runner,
      skillDir,
      prompt: options.prompt ?? "",
      outputsDir,
      readOutput: (path: string) => readOutputFile(outputsDir, path),
      answer: options.answer,
      runsDir: join(scratch, "runs"),
      ...(kind.runsIn === "sandbox" ? { sandbox: runner.sandbox({ purpose: "script" }) } : {}),
    };
    if (kind.gradeTogether) {
      const graded = await kind.gradeTogether([assertion], run);
      return graded.verdicts[0] ?? { passed: false, evidence: "no verdict", error: graded.error ?? "no verdict" };
    }
    return await kind.grade(assertion, run);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
