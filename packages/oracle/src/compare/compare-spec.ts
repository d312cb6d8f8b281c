/**
 * Which compare mode applies to a field, and where it was given: the case's `compare`, else the task's
 * `compare`, else the deliverable plugin's default for the field. Fields marked `fixedMode` (exit codes)
 * always use their own mode.
 */
import { pointer, SkillrigError, type CaseComparison, type CompareSpec, type LoadedTask, type Runner, type TestCase } from "@skillrig/core";

export interface ChosenMode {
  mode: string;
  options: Record<string, unknown>;
  /** Where the mode was named, for error messages: "/tests/2/compare", "/compare", or the plugin default. */
  source: string;
}

export function splitSpec(spec: CompareSpec): { mode: string; options: Record<string, unknown> } {
  if (typeof spec === "string") return { mode: spec, options: {} };
  const { mode, ...options } = spec;
  return { mode, options };
}

export function chooseMode(
  comparison: CaseComparison,
  testCase: TestCase,
  index: number,
  taskCompare: CompareSpec | undefined,
): ChosenMode {
  if (!comparison.fixedMode) {
    if (testCase.compare !== undefined) return { ...splitSpec(testCase.compare), source: pointer("tests", index, "compare") };
    if (taskCompare !== undefined) return { ...splitSpec(taskCompare), source: "/compare" };
  }
  return { mode: comparison.defaultMode, options: {}, source: `the default for ${comparison.field}` };
}

/** Checks before anything runs that every mode the task names has a plugin; throws naming the mode and pointer. */
export function assertModesClaimed(runner: Runner, loaded: LoadedTask): void {
  const named: Array<{ spec: CompareSpec; at: string }> = [];
  if (loaded.task.compare !== undefined) named.push({ spec: loaded.task.compare, at: "/compare" });
  loaded.task.tests.forEach((c, i) => {
    if (c.compare !== undefined) named.push({ spec: c.compare, at: pointer("tests", i, "compare") });
  });
  for (const { spec, at } of named) {
    const { mode } = splitSpec(spec);
    if (runner.claimant("compare", mode)) continue;
    const available =
      runner
        .claims("compare")
        .map((c) => `"${c.name}"`)
        .join(", ") || "(none)";
    throw new SkillrigError(
      "invalid_task",
      `unknown compare mode "${mode}" at ${at} in ${loaded.displayPath}; available modes: ${available}`,
      {
        file: loaded.displayPath,
        pointer: at,
        hint: "use a built-in mode or add the plugin that provides this mode to skillrig.config",
      },
    );
  }
}
