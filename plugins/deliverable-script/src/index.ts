import { defineProcessDeliverable } from "@skillrig/deliverable-kit";
import type { SkillrigPlugin } from "@skillrig/core";

export const PLUGIN_NAME = "@skillrig/deliverable-script";

/** The script deliverable plugin: `python3 <entrypoint>` fed `stdin` and `files` (Input Contract v1.0, script). */
export function scriptPlugin(): SkillrigPlugin {
  return defineProcessDeliverable({
    name: PLUGIN_NAME,
    type: "script",
    argv: false,
    runtime: ["python3"],
    description: "a Python script: python3 <entrypoint>, fed stdin and files",
  });
}
export default scriptPlugin;
