/**
 * The plugin: taps `runner.hooks.sandbox` and hands out the sandbox, configured from the config's
 * `sandbox` section (level, require_strongest, limits). Builtins apply it last, so a team's own sandbox
 * plugin (a container runner, say) answers first when it taps the hook before us.
 */
import { SkillrigError, type Runner, type Sandbox, type SkillrigPlugin } from "@skillrig/core";
import { type SandboxOptions, createSandbox } from "./create-sandbox.js";

export const PLUGIN_NAME = "@skillrig/sandbox";

/** Plugin options; each one wins over the config's `sandbox` section. */
export type SandboxPluginOptions = Pick<SandboxOptions, "level" | "requireStrongest">;

const LEVEL_VALUES = ["auto", "namespaces", "rlimits", "none"];

function validateOptions(options: unknown): SandboxPluginOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new SkillrigError("invalid_config", `options of plugin "${PLUGIN_NAME}" must be an object`, { field: "plugins" });
  }
  const { level, requireStrongest, ...rest } = options as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0) {
    throw new SkillrigError(
      "invalid_config",
      `plugin "${PLUGIN_NAME}" has no option ${unknownKeys.map((k) => `"${k}"`).join(", ")}; its options are "level" and "requireStrongest"`,
      { field: "plugins" },
    );
  }
  if (level !== undefined && !LEVEL_VALUES.includes(level as string)) {
    throw new SkillrigError(
      "invalid_config",
      `option "level" of plugin "${PLUGIN_NAME}" must be one of ${LEVEL_VALUES.map((l) => `"${l}"`).join(", ")}, not ${JSON.stringify(level)}`,
      { field: "plugins" },
    );
  }
  if (requireStrongest !== undefined && typeof requireStrongest !== "boolean") {
    throw new SkillrigError(
      "invalid_config",
      `option "requireStrongest" of plugin "${PLUGIN_NAME}" must be true or false, not ${JSON.stringify(requireStrongest)}`,
      {
        field: "plugins",
      },
    );
  }
  return { level: level as SandboxPluginOptions["level"], requireStrongest: requireStrongest as boolean | undefined };
}

export class SandboxPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;
  readonly #options: SandboxPluginOptions;

  constructor(options?: SandboxPluginOptions) {
    this.#options = validateOptions(options);
  }

  apply(runner: Runner): void {
    // One sandbox per strictness: a caller that allows weaker isolation must not get the refusal.
    const made = new Map<boolean, Sandbox>();
    runner.hooks.sandbox.tap(PLUGIN_NAME, (request) => {
      const config = runner.config.sandbox ?? {};
      const strict = (this.#options.requireStrongest ?? config.require_strongest ?? false) && request.allowWeaker !== true;
      let sandbox = made.get(strict);
      if (!sandbox) {
        sandbox = createSandbox({ level: this.#options.level ?? config.level ?? "auto", requireStrongest: strict, limits: config.limits });
        made.set(strict, sandbox);
      }
      return sandbox;
    });
    // The shared sample host lives as long as the runner.
    runner.hooks.close.tapPromise(PLUGIN_NAME, async () => {
      const sandboxes = [...made.values()];
      made.clear();
      await Promise.all(sandboxes.map((sandbox) => sandbox.close?.()));
    });
  }
}

/** Plugin factory: `sandboxPlugin({ level: "auto" })`; also the package's default export. */
export function sandboxPlugin(options?: SandboxPluginOptions): SkillrigPlugin {
  return new SandboxPlugin(options);
}
