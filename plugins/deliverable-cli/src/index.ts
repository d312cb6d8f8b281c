import { defineProcessDeliverable } from "@skillrig/deliverable-kit";
import type { SkillrigPlugin } from "@skillrig/core";

export const PLUGIN_NAME = "@skillrig/deliverable-cli";

/** The cli deliverable plugin: `python3 <entrypoint> argv...` fed `stdin` and `files`; every case input carries `argv`. */
export function cliPlugin(): SkillrigPlugin {
  return defineProcessDeliverable({
    name: PLUGIN_NAME,
    type: "cli",
    argv: true,
    runtime: ["python3"],
    description: "a Python command-line tool: python3 <entrypoint> argv...",
  });
}
export default cliPlugin;
