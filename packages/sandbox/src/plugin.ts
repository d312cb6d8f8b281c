/**
 * The plugin: taps `runner.hooks.sandbox` and hands out one sandbox per runner, configured from the
 * config's `sandbox` section (level, require_strongest). Builtins apply it last, so a team's own
 * sandbox plugin (a container runner) answers first.
 */
import { type Runner, type SkillrigPlugin, InvalidConfigError } from "@skillrig/core";
import { type SandboxOptions, createSandbox } from "./create-sandbox.js";

export const PLUGIN_NAME = "@skillrig/sandbox";

const LEVEL_VALUES = ["auto", "namespaces", "rlimits", "none"];

function validateOptions(options: unknown): SandboxOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidConfigError(`options of plugin "${PLUGIN_NAME}" must be an object`, { field: "plugins" });
  }
  const { level, requireStrongest, ...rest } = options as Record<string, unknown>;
  const unknownKeys = Object.keys(rest).filter((k) => k !== "fresh");
  if (unknownKeys.length > 0) {
    throw new InvalidConfigError(`plugin "${PLUGIN_NAME}" has no option ${unknownKeys.map((k) => `"${k}"`).join(", ")}; it knows "level" and "requireStrongest"`, {
      field: "plugins",
    });
  }
  if (level !== undefined && !LEVEL_VALUES.includes(level as string)) {
    throw new InvalidConfigError(`option "level" of plugin "${PLUGIN_NAME}" must be one of ${LEVEL_VALUES.map((l) => `"${l}"`).join(", ")}, not ${JSON.stringify(level)}`, {
      field: "plugins",
    });
  }
  if (requireStrongest !== undefined && typeof requireStrongest !== "boolean") {
    throw new InvalidConfigError(`option "requireStrongest" of plugin "${PLUGIN_NAME}" must be true or false`, { field: "plugins" });
  }
  return options as SandboxOptions;
}

export class SandboxPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;
  readonly #options: SandboxOptions;

  constructor(options?: SandboxOptions) {
    this.#options = validateOptions(options);
  }

  apply(runner: Runner): void {
    let sandbox: ReturnType<typeof createSandbox> | undefined;
    runner.hooks.sandbox.tap(PLUGIN_NAME, (request) => {
      const config = runner.config.sandbox ?? {};
      const requireStrongest = (this.#options.requireStrongest ?? config.require_strongest ?? false) && !request.allowWeaker;
      // One probe and one sandbox per runner; the runner caches per request too.
      if (!sandbox || requireStrongest) {
        const created = createSandbox({ level: this.#options.level ?? config.level ?? "auto", requireStrongest });
        if (requireStrongest) return created;
        sandbox = created;
      }
      return sandbox;
    });
  }
}

/** Plugin factory: `sandboxPlugin({ level: "auto" })`. */
export function sandboxPlugin(options?: SandboxOptions): SkillrigPlugin {
  return new SandboxPlugin(options);
}
