import type { CompareResult, Runner, SkillrigPlugin } from "@skillrig/core";
import { BUILTIN_MODES } from "./modes.js";

/**
 * The built-in compare modes: exact, trim, json, regex, number. Tapping `task.compare.for(mode)` claims a mode;
 * another plugin adds its own the same way: `runner.hooks.task.compare.for("mine").tap(name, (request) => ...)`.
 */
export class CompareModesPlugin implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:compare-modes";

  apply(runner: Runner): void {
    for (const [mode, compare] of Object.entries(BUILTIN_MODES)) {
      runner.hooks.task.compare.for(mode).tap(this.name, (request): CompareResult => compare(request));
    }
  }
}

export function compareModesPlugin(): SkillrigPlugin {
  return new CompareModesPlugin();
}
