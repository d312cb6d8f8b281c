import type { CompareResult, Runner, SkillrigPlugin } from "@skillrig/core";
import { BUILTIN_MODES } from "./modes.js";

/**
 * Claims and implements the built-in compare modes: exact, trim, json, regex, number.
 * Another plugin adds a mode the same way: `runner.claim("compare", "mine", name)` and a `compare` tap that
 * returns a result for `request.mode === "mine"` and undefined otherwise.
 */
export class CompareModesPlugin implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:compare-modes";

  apply(runner: Runner): void {
    for (const mode of Object.keys(BUILTIN_MODES)) runner.claim("compare", mode, this.name);
    runner.hooks.compare.tap(this.name, (request): CompareResult | undefined => BUILTIN_MODES[request.mode]?.(request));
  }
}

export function compareModesPlugin(): SkillrigPlugin {
  return new CompareModesPlugin();
}
