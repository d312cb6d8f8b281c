/**
 * Checks a solve attempt (`POST /v1/solve/attempts`) before it is queued: the engine must be claimed here and its
 * options limited as for a skill job. A skill job's request is checked by the skills package's `checkJobRequest`
 * (with `client`), the same function runJob asks, so the two cannot disagree. The task itself is validated by the
 * caller (invalid_task under /task).
 */
import { SkillrigError, type Runner } from "@skillrig/core";
import { engineOptionViolations } from "@skillrig/skills";

export function checkSolveAttempt(
  runner: Runner,
  engine: { name: string; options?: Record<string, unknown> },
  clientEngineOptions: readonly string[],
): void {
  runner.requireClaim("engine", engine.name, { pointer: "/engine/name", field: "engine" });
  const violations = engineOptionViolations(engine.options, clientEngineOptions, "/engine/options");
  if (violations.length > 0) {
    throw new SkillrigError(
      "schema_violation",
      `the solve attempt sets engine options only the server may set: ${violations.map((v) => v.field).join(", ")}`,
      {
        pointer: violations[0]?.pointer,
        violations,
      },
    );
  }
}
