/**
 * Engine plugin options: the ones every engine shares, declared once as JSON Schema, and the engine's own
 * properties added beside them. Validated with ajv (through core's compileSchema) in the plugin's
 * constructor, and again per job after the request's engine options are merged over them.
 */
import { SkillrigError, compileSchema, pointerToKeyPath, type JsonSchema } from "@skillrig/core";
import type { Scenario } from "@skillrig/mock-model";

export interface BaseEngineOptions {
  /** Path of the CLI's executable; default: the pinned CLI package's bin, else the command on PATH. */
  binary?: string;
  model?: string;
  /** Model API base URL (a proxy, or a mock-model server). */
  base_url?: string;
  /** Name of the environment variable that holds the API key (read from skillrig's environment). */
  api_key_env?: string;
  /** Arguments added to the CLI's command line, before the prompt. */
  extra_args?: string[];
  /** Wall-clock limit of one run (a job's own `options.timeout_ms` wins). Default 600000. */
  timeout_ms?: number;
  /** Kill the CLI when it prints nothing for this long. Default 180000. */
  idle_timeout_ms?: number;
  /** Variables added to the CLI's environment. */
  env?: Record<string, string>;
  /**
   * Play a scripted model instead of calling a real one: a @skillrig/mock-model scenario (a file path,
   * relative to the config file, or the scenario object). Each job starts its own loopback server.
   */
  mock_scenario?: string | Scenario;
  /**
   * "auto" (default): the engine and its tool commands run in the agent jail of the project's sandbox plugin
   * (docs/sandbox.md, "Agent profile"; @skillrig/sandbox's runs unconfined with a warning where the machine cannot
   * build the jail); no sandbox plugin with an agent profile is an error. "none": unconfined, on purpose.
   */
  jail?: "auto" | "none";
  /**
   * Turns the agent gets to fix a final answer that breaks the skill's output schema: the violations are sent
   * back in a new run of the CLI. Default 0 (off): a repair turn costs a whole CLI run and model tokens.
   */
  repair_turns?: number;
}

export const BASE_OPTION_PROPERTIES = {
  binary: { type: "string", minLength: 1 },
  model: { type: "string", minLength: 1 },
  base_url: { type: "string", pattern: "^https?://" },
  api_key_env: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
  extra_args: { type: "array", items: { type: "string" } },
  timeout_ms: { type: "integer", minimum: 1 },
  idle_timeout_ms: { type: "integer", minimum: 1 },
  env: { type: "object", additionalProperties: { type: "string" } },
  mock_scenario: { anyOf: [{ type: "string", minLength: 1 }, { type: "object" }] },
  jail: { enum: ["auto", "none"] },
  repair_turns: { type: "integer", minimum: 0, maximum: 3 },
} as const;

export function engineOptionsSchema(ownProperties: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    additionalProperties: false,
    properties: { ...BASE_OPTION_PROPERTIES, ...ownProperties },
  };
}

/** A validator that throws `invalid_config` naming each bad option (`plugins[].timeout_ms: must be integer`). */
export function createOptionsValidator<O>(pluginName: string, schema: Record<string, unknown>) {
  const compiled = compileSchema(schema as JsonSchema);
  const known = Object.keys((schema.properties as Record<string, unknown>) ?? {});
  return (options: unknown, where = "options"): O => {
    const value = options ?? {};
    const violations = compiled.validate(value);
    if (violations.length > 0) {
      const lines = violations.map((v) => {
        const key = pointerToKeyPath(v.pointer ?? "") || "(options)";
        const message = v.rule === "additionalProperties" ? `unknown option; known options: ${known.join(", ")}` : v.message;
        return `${key}: ${message}`;
      });
      throw new SkillrigError("invalid_config", `${pluginName} ${where}: ${lines.join("; ")}`, {
        pointer: violations[0]!.pointer,
        field: pointerToKeyPath(violations[0]!.pointer ?? ""),
        violations,
      });
    }
    return value as O;
  };
}
