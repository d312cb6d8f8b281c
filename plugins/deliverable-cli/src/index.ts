import type { SkillrigPlugin } from "@skillrig/core";
import { ProcessDeliverablePlugin } from "@skillrig/deliverable-script";

export const PLUGIN_NAME = "@skillrig/deliverable-cli";

/**
 * The cli deliverable plugin: `python3 <entrypoint> argv...` fed `stdin` and `files`. It is the script plugin's
 * process runner with one difference, set by its type: every case input must carry `argv`, a list of strings.
 */
export function cliPlugin(): SkillrigPlugin {
  return new ProcessDeliverablePlugin({ type: "cli", name: PLUGIN_NAME });
}
export default cliPlugin;
