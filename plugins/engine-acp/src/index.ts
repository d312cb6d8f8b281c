/**
 * @skillrig/engine-acp: runs skill jobs through any agent that speaks the Agent Client Protocol over stdio.
 * In a config, one instance per agent, each claiming its own engine name:
 *   ["@skillrig/engine-acp", { "name": "gemini-acp", "command": ["gemini", "--acp"] }]
 */
import { resolve } from "node:path";
import { SkillrigError, type Runner, type SkillrigPlugin } from "@skillrig/core";
// `runner.config.sandbox` is typed by the sandbox's config section: a type only, nothing of the sandbox is loaded.
import type {} from "@skillrig/sandbox/config-section";
import { createOptionsValidator, engineOptionsSchema, runEngineJob } from "@skillrig/engine-kit";
import { acpAdapter } from "./adapter.js";
import { ACP_OPTION_PROPERTIES, ACP_REQUIRED_OPTIONS, type AcpOptions } from "./options.js";

export const PLUGIN_NAME = "@skillrig/engine-acp";

const validate = createOptionsValidator<AcpOptions>(PLUGIN_NAME, {
  ...engineOptionsSchema(ACP_OPTION_PROPERTIES),
  required: ACP_REQUIRED_OPTIONS,
});

/**
 * The agent's executable: a path is relative to the config's folder; a bare name stays a name, looked up on PATH.
 * (The agent jail starts it by its real path, so a `node_modules/...` link into pnpm's store works.)
 */
function agentExecutable(executable: string, configDir: string): string {
  return executable.includes("/") ? resolve(configDir, executable) : executable;
}

/** The engine names ACP instances claimed on each runner: a second instance with the same name is a conflict. */
const claimed = new WeakMap<Runner, Set<string>>();

export class AcpEnginePlugin implements SkillrigPlugin {
  readonly name: string;
  readonly options: AcpOptions;
  constructor(options?: AcpOptions) {
    this.options = validate(options ?? {});
    // The instance's name carries its engine: two instances are two plugins to core's claims and hooks.
    this.name = `${PLUGIN_NAME}#${this.options.name}`;
  }

  apply(runner: Runner): void {
    const { name: engine, command } = this.options;
    const names = claimed.get(runner) ?? new Set<string>();
    if (names.has(engine))
      throw new SkillrigError(
        "plugin_conflict",
        `engine "${engine}" is claimed by two ${PLUGIN_NAME} instances; give each instance its own "name"`,
        { field: "plugins", details: { kind: "engine", name: engine } },
      );
    claimed.set(runner, names.add(engine));
    const adapter = acpAdapter(engine, command, this.options.display_name, this.options.context_file);
    runner.claim("engine", engine, this.name, {
      description: `${adapter.displayName} over ACP (${command.join(" ")})`,
      package: PLUGIN_NAME,
    });
    runner.hooks.job.execute.for(engine).tapPromise(this.name, async (jobRequest) => {
      const options = validate(
        { ...this.options, ...(jobRequest.work.engineOptions ?? {}) },
        `engine options of job ${jobRequest.work.jobId}`,
      );
      if (options.name !== engine || options.command.join("\0") !== command.join("\0"))
        throw new SkillrigError(
          "invalid_config",
          `engine options of job ${jobRequest.work.jobId}: "name" and "command" are the plugin's, not a job's`,
          {
            field: "engine_options",
          },
        );
      return runEngineJob({
        adapter,
        request: jobRequest,
        options: { ...options, binary: agentExecutable(options.binary ?? command[0]!, runner.configDir) },
        configDir: runner.configDir,
        agentSandbox: () => runner.hooks.sandbox.call({ purpose: "engine", profile: "agent" }),
        // The config's bounds on the agent (output, processes, folders); without them engine-kit's defaults hold.
        bounds: runner.config.sandbox?.agent,
      });
    });
  }
}

export default AcpEnginePlugin;
export { acpAdapter };
export type { AcpOptions };
export { decidePermission, allowedByPolicy } from "./policy.js";
export { createAcpTurnState, type AcpTurnState } from "./session-state.js";
