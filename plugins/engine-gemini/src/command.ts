/**
 * The gemini command line, settings file and environment for one job.
 * - `-o stream-json`: one JSON event per line, parsed as it arrives.
 * - `--approval-mode auto_edit|yolo`: in the default mode headless gemini has no file-writing tools at all.
 * - GEMINI_CLI_TRUST_WORKSPACE=true: without it gemini refuses to run in an untrusted folder (exit 55).
 * - settings.json in the isolated home selects API-key auth (else it asks for a login, exit 41).
 * - Skills: gemini lists the skills under the trusted workspace's `.agents/skills/` by itself (where runJob installs
 *   the job's skill), but its headless policy denies `activate_skill` (policies/write.toml: ask the user when
 *   interactive, deny when not). A user policy in the isolated home (`~/.gemini/policies/`) allows it, so the model
 *   can activate the skill the CLI's way; not written when the job installs no skill (`skill_install: "none"`).
 */
import { join } from "node:path";
import { type EngineInvocation, type EngineRunContext, writeRunnerFile } from "@skillrig/engine-kit";
import type { GeminiOptions } from "./options.js";

/** Deep merge of plain objects (settings from options over ours). */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" && !Array.isArray(b)
        ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export function geminiSettings(options: GeminiOptions): Record<string, unknown> {
  // A scripted error must end the run at once, not after ten attempts with backoff (minutes).
  const retries = options.retries ?? (options.mock_scenario !== undefined ? 0 : undefined);
  return merge(
    {
      security: { auth: { selectedType: "gemini-api-key" } },
      // No usage statistics or update checks from a job: they would call out of a loopback-only run.
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true, ...(retries !== undefined ? { maxAttempts: retries + 1 } : {}) },
    },
    options.settings ?? {},
  );
}

/** The user policy that lets headless gemini run `activate_skill` (its default policy denies it without a user). */
export const SKILL_POLICY = [
  "# Written by skillrig: a job's agent may activate the skills gemini lists (headless gemini denies it by default).",
  "[[rule]]",
  'toolName = "activate_skill"',
  'decision = "allow"',
  "priority = 100",
  "",
].join("\n");

export function geminiArgs(ctx: EngineRunContext<GeminiOptions>): string[] {
  const { options } = ctx;
  const args = ["-o", "stream-json", "--approval-mode", options.approval_mode ?? "auto_edit"];
  if (options.model) args.push("-m", options.model);
  args.push(...(options.extra_args ?? []));
  // `--prompt=` keeps a prompt that starts with "-" from being read as an option.
  args.push(`--prompt=${ctx.prompt}`);
  return args;
}

export function geminiInvocation(ctx: EngineRunContext<GeminiOptions>): EngineInvocation {
  const settingsDir = join(ctx.dirs.home, ".gemini");
  // The HOME is the agent's after the first turn: a symlink it left is refused, never written through.
  writeRunnerFile(ctx.dirs.home, join(settingsDir, "settings.json"), `${JSON.stringify(geminiSettings(ctx.options), null, 2)}\n`);
  if (ctx.request.work.skillInstall !== "none")
    writeRunnerFile(ctx.dirs.home, join(settingsDir, "policies", "skillrig-skills.toml"), SKILL_POLICY);
  const env: Record<string, string> = { GEMINI_CLI_TRUST_WORKSPACE: "true" };
  if (ctx.apiKey) env.GEMINI_API_KEY = ctx.apiKey;
  if (ctx.baseUrl) env.GOOGLE_GEMINI_BASE_URL = ctx.baseUrl;
  return { args: geminiArgs(ctx), env };
}
