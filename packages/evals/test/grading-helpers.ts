/** Shared set-up of the grading tests: a temp folder per test file, a run's outputs/ in it, a runner. */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Runner, type SkillrigPlugin } from "@skillrig/core";
import deliverableFunction from "@skillrig/deliverable-function";
import { compareModesPlugin } from "@skillrig/oracle";
import sandboxPlugin from "@skillrig/sandbox";
import { skillProtocolPlugin } from "@skillrig/skills";
import type { Assertion } from "../src/format.js";
import { builtinAssertionKinds } from "../src/grading/builtin-kinds.js";
import type { GradeRunInput } from "../src/grading-contract.js";

export const FIXTURES = resolve(import.meta.dirname, "fixtures/grading");

export function tempFolder(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `files` (relative path -> content) under `dir`/outputs and returns that folder. */
export function writeOutputs(dir: string, files: Record<string, string>, name = "outputs"): string {
  const outputs = join(dir, name);
  mkdirSync(outputs, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(outputs, path)), { recursive: true });
    writeFileSync(join(outputs, path), content);
  }
  return outputs;
}

/** A copy of the fixture skill in `dir` (so its modes and place are a test's own). */
export function copySkill(dir: string, name = "rle-skill"): string {
  const to = join(dir, "skills", name);
  cpSync(join(FIXTURES, name), to, { recursive: true });
  return to;
}

export function gradingRunner(cwd: string, ...plugins: SkillrigPlugin[]): Runner {
  const runner = new Runner({ cwd });
  for (const plugin of plugins) runner.use(plugin);
  return runner
    .use(compareModesPlugin())
    .use(deliverableFunction())
    .use(skillProtocolPlugin())
    .use(builtinAssertionKinds())
    .use(sandboxPlugin());
}

export function input(
  base: Pick<GradeRunInput, "runner" | "skillDir" | "outputsDir" | "runsDir">,
  assertions: Assertion[],
  extra: Partial<GradeRunInput> = {},
): GradeRunInput {
  return { prompt: "Run-length encode the file and report the total.", assertions, ...base, ...extra };
}
