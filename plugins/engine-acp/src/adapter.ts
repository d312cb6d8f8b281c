/**
 * An engine-kit adapter for one ACP agent: its command line (the `command` option), the model endpoint and key in
 * its environment, and `drive` (drive.ts) instead of a stdout parser. One adapter per plugin instance: its engine
 * name is the instance's `name`.
 */
import { join } from "node:path";
import { type EngineAdapter, type EngineFailure, writeRunnerFile } from "@skillrig/engine-kit";
import { driveAcp } from "./drive.js";
import { ACP_OPTION_PROPERTIES, type AcpOptions } from "./options.js";
import { type AcpTurnState, createAcpTurnState } from "./session-state.js";

/** Where the agent finds its model endpoint and key unless `base_url_env` / `key_env` say otherwise (Gemini CLI's). */
export const DEFAULT_BASE_URL_ENV = ["GOOGLE_GEMINI_BASE_URL"];
export const DEFAULT_KEY_ENV = ["GEMINI_API_KEY"];

export function acpAdapter(
  name: string,
  command: string[],
  displayName = `ACP agent ${name}`,
  contextFile = "AGENTS.md",
): EngineAdapter<AcpOptions> {
  return {
    engine: name,
    displayName,
    contextFileName: contextFile,
    optionProperties: ACP_OPTION_PROPERTIES,
    defaultApiKeyEnv: "GEMINI_API_KEY",
    defaultBinary: () => command[0]!,
    parseVersion: (stdout) => /\d+\.\d+\.\d+[\w.-]*/.exec(stdout)?.[0],
    mockBaseUrl: (url) => url,
    invocation(ctx) {
      // The HOME is the agent's after a first turn: a symlink it left there is refused, never written through.
      for (const [path, content] of Object.entries(ctx.options.home_files ?? {}))
        writeRunnerFile(
          ctx.dirs.home,
          join(ctx.dirs.home, path),
          typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`,
        );
      const env: Record<string, string> = {};
      if (ctx.apiKey) for (const variable of ctx.options.key_env ?? DEFAULT_KEY_ENV) env[variable] = ctx.apiKey;
      if (ctx.baseUrl) for (const variable of ctx.options.base_url_env ?? DEFAULT_BASE_URL_ENV) env[variable] = ctx.baseUrl;
      return { args: [...ctx.options.command.slice(1), ...(ctx.options.extra_args ?? [])], env };
    },
    createParser: (ctx) => createAcpTurnState(ctx.dirs.workspace),
    drive: driveAcp,
    classify(run, parser): EngineFailure | undefined {
      const state = parser as AcpTurnState;
      const stop = state.stopReason();
      if (stop === "end_turn") return undefined;
      if (stop === "cancelled") return { kind: "canceled", message: `${displayName} cancelled its prompt turn` };
      if (stop !== undefined) return { kind: "crash", message: `${displayName} stopped its prompt turn: ${stop}` };
      // engine-kit's AttemptRun: a drive that threw is kept as driveError.
      const why = (run as { driveError?: string }).driveError ?? state.errors().at(-1);
      const exit = run.exitCode !== null ? ` (it exited with code ${run.exitCode})` : run.signal ? ` (it was killed by ${run.signal})` : "";
      const stderr = run.stderrTail.trim().split("\n").slice(-3).join(" | ");
      return {
        kind: "crash",
        message: `${displayName} ended before its prompt turn did${exit}${why ? `: ${why}` : ""}${stderr ? `; stderr: ${stderr}` : ""}`,
      };
    },
  };
}
