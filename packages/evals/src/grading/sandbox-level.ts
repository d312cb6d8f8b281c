/** Checks run agent-made files; at a level that cannot hide the skill's evals/ from them, only when named. */
import { SkillrigError, type Sandbox } from "@skillrig/core";

const WEAK_LEVELS = new Set(["rlimits", "none"]);

/** Throws `sandbox_unavailable` for a weak level the user did not name (the oracle's rule, for scripts too). */
export function requireGradingLevel(sandbox: Sandbox): void {
  if (!WEAK_LEVELS.has(sandbox.isolation) || sandbox.levelNamed) return;
  throw new SkillrigError(
    "sandbox_unavailable",
    `refusing to run an eval's script check at isolation level "${sandbox.isolation}": at that level the files the agent left could read the skill's evals/ (expected outputs, hidden tasks) and the runner's files; level "namespaces" is needed`,
    {
      field: "sandbox.level",
      hint: `install bubblewrap for level "namespaces", or name the level (sandbox.level: "${sandbox.isolation}") to accept the risk`,
    },
  );
}
