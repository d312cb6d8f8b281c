/**
 * The claude command line, settings file and environment for one job.
 * - `-p --output-format stream-json --verbose`: headless, one JSON message per line (stream-json needs --verbose).
 * - `--permission-mode acceptEdits` by default: in -p nobody answers a permission prompt, so without it every file
 *   write is denied; `--allowedTools` adds rules (e.g. `Bash`) that run without asking.
 * - `--json-schema`: the skill's output schema (annotations dropped, see json-schema.ts); the model answers through
 *   Claude Code's StructuredOutput tool, which validates it, and the result carries `structured_output`.
 * - `--no-session-persistence`: a job is never resumed; no transcript is kept in the isolated home.
 * - The key goes in ANTHROPIC_API_KEY, a base URL (a proxy or the mock model) in ANTHROPIC_BASE_URL. Telemetry,
 *   error reporting, update checks and the start-up connectivity probe are switched off with Claude Code's own
 *   variables: a job talks to its model API and nothing else.
 * - The skill is copied to `.claude/skills/<id>` (Claude Code does not look in `.agents/skills/`), so it is in the
 *   CLI's skill list and its Skill tool can load it, as gemini and codex find theirs. A real copy, not a link (a
 *   link's target is outside what Claude Code treats as the project's skill), without the skill's `evals/`; none at
 *   all when the job installs no skill (`skill_install: "none"`).
 * - `--` ends the options: `--allowedTools` takes several values and would swallow the prompt, and a prompt that
 *   starts with "-" must not be read as an option.
 */
import { cpSync, lstatSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { type EngineInvocation, type EngineRunContext, makeRunnerFolder, writeRunnerFile } from "@skillrig/engine-kit";
import { toClaudeSchema } from "./json-schema.js";
import type { ClaudeOptions } from "./options.js";

/** Claude Code's variables that keep a run to its model API (documented in Claude Code's settings reference). */
export const QUIET_ENV: Record<string, string> = {
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};

export function claudeArgs(ctx: EngineRunContext<ClaudeOptions>, schema?: Record<string, unknown>): string[] {
  const { options } = ctx;
  const args = ["-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence"];
  args.push("--permission-mode", options.permission_mode ?? "acceptEdits");
  if (options.model) args.push("--model", options.model);
  if (options.allowed_tools && options.allowed_tools.length > 0) args.push("--allowedTools", ...options.allowed_tools);
  if (schema) args.push("--json-schema", JSON.stringify(schema));
  args.push(...(options.extra_args ?? []));
  args.push("--", ctx.prompt);
  return args;
}

/** Copies the installed skill where Claude Code discovers project skills (without `evals/`); a note when it cannot. */
export function copySkill(dirs: { workspace: string; skillDir: string }): string | undefined {
  const target = join(dirs.workspace, ".claude", "skills", basename(dirs.skillDir));
  // Anything already there (a copy from an earlier attempt, or something the agent left) is never written through.
  if (lstatOrUndefined(target)) return undefined;
  try {
    // The workspace is the agent's after the first turn: a symlinked folder on the way is refused, not followed.
    makeRunnerFolder(dirs.workspace, dirname(target));
    const evals = join(dirs.skillDir, "evals");
    cpSync(dirs.skillDir, target, {
      recursive: true,
      filter: (source) => source !== evals && !source.startsWith(`${evals}${sep}`),
    });
    return undefined;
  } catch (error) {
    return `the skill is not copied into .claude/skills (${(error as Error).message}); Claude Code does not list it`;
  }
}

/** @deprecated since the skill is copied, not linked: use `copySkill`. */
export const linkSkill = copySkill;

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function claudeInvocation(ctx: EngineRunContext<ClaudeOptions>): EngineInvocation {
  const notes: string[] = [];
  if (ctx.request.work.skillInstall !== "none") {
    const copyProblem = copySkill(ctx.dirs);
    if (copyProblem) notes.push(copyProblem);
  }
  let schema: Record<string, unknown> | undefined;
  if (ctx.outputSchema !== undefined && ctx.options.output_schema !== false) {
    const converted = toClaudeSchema(ctx.outputSchema);
    schema = converted.schema;
    notes.push(...converted.changes);
  }
  if (ctx.options.settings) {
    const dir = join(ctx.dirs.home, ".claude");
    writeRunnerFile(ctx.dirs.home, join(dir, "settings.json"), `${JSON.stringify(ctx.options.settings, null, 2)}\n`);
  }
  const env: Record<string, string> = { ...QUIET_ENV };
  if (ctx.apiKey) env.ANTHROPIC_API_KEY = ctx.apiKey;
  if (ctx.baseUrl) env.ANTHROPIC_BASE_URL = ctx.baseUrl;
  // A scripted error must end the run at once, not after ten retries with backoff.
  const retries = ctx.options.retries ?? (ctx.options.mock_scenario !== undefined ? 0 : undefined);
  if (retries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(retries);
  return { args: claudeArgs(ctx, schema), env, notes };
}
