import type { CompareResult, Runner, SkillrigPlugin } from "@skillrig/core";
import { diffBounds } from "./compact-diff.js";
import { BUILTIN_MODES } from "./modes.js";

/**
 * The built-in compare modes: exact, trim, json, regex, number. Tapping `task.compare.for(mode)` claims a mode;
 * another plugin adds its own the same way: `runner.hooks.task.compare.for("mine").tap(name, (request) => ...)`.
 */
export class CompareModesPlugin implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:compare-modes";

  apply(runner: Runner): void {
    for (const [mode, compare] of Object.entries(BUILTIN_MODES)) {
      // The diff bounds are the config's (`oracle.diff`), read when a comparison is made: the config is loaded by then.
      runner.hooks.task.compare.for(mode).tap(this.name, (request): CompareResult => compare(request, diffBounds(runner.config)));
    }
  }
}

export function compareModesPlugin(): SkillrigPlugin {
  return new CompareModesPlugin();
}
