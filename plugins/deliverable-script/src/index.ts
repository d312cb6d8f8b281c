import type { SkillrigPlugin } from "@skillrig/core";
import { ProcessDeliverablePlugin } from "./process-deliverable-plugin.js";

export const PLUGIN_NAME = "@skillrig/deliverable-script";

/** The script deliverable plugin: `python3 <entrypoint>` fed `stdin` and `files`. */
export function scriptPlugin(): SkillrigPlugin {
  return new ProcessDeliverablePlugin({ type: "script", name: PLUGIN_NAME });
}
export default scriptPlugin;

// Shared with @skillrig/deliverable-cli, which is the same plugin with argv.
export { ProcessDeliverablePlugin } from "./process-deliverable-plugin.js";
export type { ProcessDeliverablePluginOptions } from "./process-deliverable-plugin.js";
export { validateProcessInput, validateProcessExpected, CLI_ARGV_MESSAGE } from "./validate-process-case.js";
export type { ProcessInput, ProcessExpected, ProcessDeliverableType } from "./validate-process-case.js";
export { unsafePathReason } from "./safe-relative-path.js";
