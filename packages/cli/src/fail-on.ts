/**
 * `--fail-on regression|significant|never`: when a comparison makes a command exit 1 (`runs diff`, `skillrig eval`).
 * - `regression`: any case of an unchanged deliverable that broke, or any task (eval: case) whose rate fell;
 * - `significant`: only a drop that is not noise: its 95% interval is below 0 and the exact test's p < 0.05;
 * - `never`: report, never fail.
 */
import { SkillrigError } from "@skillrig/core";

export const FAIL_ON = ["regression", "significant", "never"] as const;
export type FailOn = (typeof FAIL_ON)[number];

export function parseFailOn(value: string, flag = "--fail-on"): FailOn {
  if ((FAIL_ON as readonly string[]).includes(value)) return value as FailOn;
  throw new SkillrigError("usage", `${flag} "${value}": expected one of ${FAIL_ON.join(", ")}`, { field: flag });
}

/** Whether a comparison fails the gate. */
export function failsGate(failOn: FailOn, verdict: { regression: boolean; significant_drop: boolean }): boolean {
  if (failOn === "never") return false;
  return failOn === "significant" ? verdict.significant_drop : verdict.regression;
}
