/**
 * Makes a plugin class from an adapter: options validated in the constructor (ajv), and a tap of
 * `job.execute.for(engine)`, which claims the engine name: only that engine's jobs ever reach it.
 */
import type { Runner, SkillrigPlugin } from "@skillrig/core";
// `runner.config.sandbox` is typed by the sandbox's config section: a type only, nothing of the sandbox is loaded.
import type {} from "@skillrig/sandbox/config-section";
import type { EngineAdapter } from "./adapter.js";
import { createOptionsValidator, engineOptionsSchema, type BaseEngineOptions } from "./options.js";
import { runEngineJob } from "./run-engine-job.js";

export type EnginePluginClass<O extends BaseEngineOptions> = {
  new (options?: O): SkillrigPlugin & { readonly options: O; readonly auth?: "api_key" | "none" };
  /** Whether a job needs an API key (the adapter's `auth`), readable without options; unset means it does. */
  readonly auth?: "api_key" | "none";
};

export function createEnginePlugin<O extends BaseEngineOptions>(pluginName: string, adapter: EngineAdapter<O>): EnginePluginClass<O> {
  if (adapter.auth !== "none" && !adapter.defaultApiKeyEnv) {
    throw new Error(
      `engine adapter "${adapter.engine}" of ${pluginName} has no defaultApiKeyEnv: name the variable its API key is read from, or say auth: "none" for a CLI that needs no key`,
    );
  }
  const validate = createOptionsValidator<O>(pluginName, engineOptionsSchema(adapter.optionProperties));
  return class EnginePlugin implements SkillrigPlugin {
    readonly name = pluginName;
    readonly options: O;
    /** Whether a job needs an API key (the adapter's `auth`). */
    static readonly auth = adapter.auth ?? "api_key";
    readonly auth = adapter.auth ?? "api_key";
    constructor(options?: O) {
      this.options = validate(options ?? {});
    }
    apply(runner: Runner): void {
      const mock = this.options.mock_scenario;
      runner.claim("engine", adapter.engine, this.name, {
        description: `${adapter.displayName} (${adapter.engine})`,
        package: pluginName,
        // Said in listings and in `skillrig run`'s header, so nobody takes a scripted answer for a model's.
        ...(mock !== undefined ? { mock_model: typeof mock === "string" ? mock : "an inline scenario" } : {}),
      });
      runner.hooks.job.execute.for(adapter.engine).tapPromise(this.name, async (jobRequest) => {
        const options = validate(
          { ...this.options, ...(jobRequest.work.engineOptions ?? {}) },
          `engine options of job ${jobRequest.work.jobId}`,
        );
        return runEngineJob({
          adapter,
          request: jobRequest,
          options,
          configDir: runner.configDir,
          agentSandbox: () => runner.hooks.sandbox.call({ purpose: "engine", profile: "agent" }),
          bounds: runner.config.sandbox?.agent,
        });
      });
    }
  };
}
