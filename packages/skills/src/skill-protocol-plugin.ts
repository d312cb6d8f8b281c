/**
 * The Input & File Protocol as a plugin. It taps core's job hooks at an early stage so that plugins from the
 * config refine its results rather than being overwritten by them:
 *   resolveInput     -> file inputs from uploads/, inline inputs, parameter defaults, schema validation
 *   renderPrompt     -> default or engine-specific prompt, rendered SKILL.md with the output contract appended
 *   collectArtifacts -> artifacts located and copied into artifacts/, output validated against the output schema
 * It claims nothing: engines are other plugins that tap `job.execute`.
 */
import type { Runner, SkillrigPlugin } from "@skillrig/core";
import { collectJobArtifacts } from "./collect-artifacts.js";
import { renderJobPrompt } from "./render-prompt.js";
import { resolveJobInput } from "./resolve-input.js";

const PLUGIN_NAME = "@skillrig/skills";
/** Taps at this stage run before default-stage (0) taps. */
const BASE_STAGE = -100;

export class SkillProtocolPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;

  apply(runner: Runner): void {
    const tap = { name: PLUGIN_NAME, stage: BASE_STAGE };
    runner.hooks.job.resolveInput.tapPromise(tap, async (resolution, work) => resolveJobInput(resolution, work));
    runner.hooks.job.renderPrompt.tapPromise(tap, async (prompt, work) => renderJobPrompt(prompt, work));
    runner.hooks.job.collectArtifacts.tapPromise(tap, async (collection, work) => collectJobArtifacts(collection, work));
  }
}

/** The plugin factory (the package's default export, so `"@skillrig/skills"` works in a config's plugins list). */
export function skillProtocolPlugin(): SkillProtocolPlugin {
  return new SkillProtocolPlugin();
}
