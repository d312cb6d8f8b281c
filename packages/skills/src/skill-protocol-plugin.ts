/**
 * The Input & File Protocol as a plugin. It taps core's job hooks at an early stage so that plugins from the
 * config refine its results rather than being overwritten by them:
 *   resolveInput     -> file inputs from uploads/, inline inputs, parameter defaults, schema validation
 *   renderPrompt     -> default or engine-specific prompt, rendered SKILL.md with the output contract appended
 *   prepareRuntime   -> the Python environment of the skill's runtime.dependencies
 *   collectArtifacts -> artifacts located and copied into artifacts/, output validated against the output schema
 * It claims nothing: engines are other plugins that tap `job.execute`.
 */
import type { Runner, SkillrigPlugin } from "@skillrig/core";

const PLUGIN_NAME = "@skillrig/skills";
/** Taps at this stage run before default-stage (0) taps. */
const BASE_STAGE = -100;

export class SkillProtocolPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;

  apply(runner: Runner): void {
    const tap = { name: PLUGIN_NAME, stage: BASE_STAGE };
    // The protocol's modules (and nunjucks, yaml, file-type behind them) load with the first job, not with the
    // plugin: a runner that only grades (`skillrig test`) never pays for them.
    runner.hooks.job.resolveInput.tapPromise(tap, async (resolution, work) =>
      (await import("./resolve-input.js")).resolveJobInput(resolution, work),
    );
    runner.hooks.job.renderPrompt.tapPromise(tap, async (prompt, work) =>
      (await import("./render-prompt.js")).renderJobPrompt(prompt, work),
    );
    // Python (and execa behind it) loads only for a skill that has runtime dependencies.
    runner.hooks.job.prepareRuntime.tapPromise(tap, async (runtime, work) =>
      (work.skill.runtime?.dependencies ?? []).length === 0
        ? runtime
        : (await import("./python-runtime.js")).preparePythonRuntime(runner, runtime, work),
    );
    runner.hooks.job.collectArtifacts.tapPromise(tap, async (collection, work) =>
      (await import("./collect-artifacts.js")).collectJobArtifacts(collection, work),
    );
  }
}

/** The plugin factory (the package's default export, so `"@skillrig/skills"` works in a config's plugins list). */
export function skillProtocolPlugin(): SkillProtocolPlugin {
  return new SkillProtocolPlugin();
}
