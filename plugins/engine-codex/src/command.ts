/**
 * The codex exec command line and environment for one job.
 * - `exec --json`: one JSON event per line; `-o <file>`: the last message, written by codex itself.
 * - `--sandbox workspace-write` (codex 0.169 rejects the old `--full-auto`); `-C <workspace>`;
 *   `--skip-git-repo-check` (a run workspace is not a git repository); `--ephemeral` (no session files).
 * - CODEX_HOME in the isolated home, which must not lie under TMPDIR: codex then refuses to create its
 *   sandbox helper and every sandboxed command fails ("bwrap: execvp codex-linux-sandbox").
 * - The key goes in CODEX_API_KEY (codex ignores OPENAI_API_KEY without a login). A base URL (a proxy or
 *   the mock model) becomes a custom Responses provider over plain HTTPS/HTTP without websockets.
 */
import { join } from "node:path";
import { type EngineInvocation, type EngineRunContext, makeRunnerFolder, writeRunnerFile } from "@skillrig/engine-kit";
import type { CodexOptions } from "./options.js";
import { toStrictSchema } from "./strict-schema.js";

/** A TOML string literal (basic string, JSON escapes are valid TOML escapes for what we write). */
function toml(value: string | number | boolean): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

export function lastMessageFile(ctx: EngineRunContext<CodexOptions>): string {
  return join(ctx.dirs.engineDir, "last-message.txt");
}

export function codexArgs(ctx: EngineRunContext<CodexOptions>, schemaFile?: string): string[] {
  const { options } = ctx;
  const args = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--ephemeral",
    "--sandbox",
    options.sandbox ?? "workspace-write",
    "-C",
    ctx.dirs.workspace,
  ];
  args.push("-o", lastMessageFile(ctx));
  if (schemaFile) args.push("--output-schema", schemaFile);
  if (options.model) args.push("-m", options.model);
  const config: Array<[string, string | number | boolean]> = [];
  if (ctx.baseUrl) {
    const mock = options.mock_scenario !== undefined;

    config.push(
      ["model_provider", "skillrig"],
      ["model_providers.skillrig.name", "skillrig"],
      ["model_providers.skillrig.base_url", ctx.baseUrl],
      ["model_providers.skillrig.env_key", "CODEX_API_KEY"],
      ["model_providers.skillrig.wire_api", "responses"],
      ["model_providers.skillrig.supports_websockets", false],
    );
    // A scripted error must end the run at once, not after codex's five reconnects.
    const retries = options.retries ?? (mock ? 0 : undefined);
    if (retries !== undefined)
      config.push(["model_providers.skillrig.request_max_retries", retries], ["model_providers.skillrig.stream_max_retries", retries]);
  }
  for (const [k, v] of Object.entries(options.config ?? {})) config.push([k, v]);
  for (const [k, v] of config) args.push("-c", `${k}=${toml(v)}`);
  args.push(...(options.extra_args ?? []));
  // `--` keeps a prompt that starts with "-" from being read as an option.
  args.push("--", ctx.prompt);
  return args;
}

export function codexInvocation(ctx: EngineRunContext<CodexOptions>): EngineInvocation {
  const codexHome = join(ctx.dirs.home, ".codex");
  // The engine's folders are the agent's after the first turn: a symlink it left is refused, never followed.
  makeRunnerFolder(ctx.dirs.engineDir, codexHome);
  const notes: string[] = [];
  let schemaFile: string | undefined;
  if (ctx.outputSchema !== undefined && ctx.options.output_schema !== false) {
    const strict = toStrictSchema(ctx.outputSchema);
    if (strict.schema) {
      schemaFile = join(ctx.dirs.engineDir, "output-schema.json");
      writeRunnerFile(ctx.dirs.engineDir, schemaFile, `${JSON.stringify(strict.schema, null, 2)}\n`);
      notes.push(...strict.changes);
    } else {
      notes.push(`--output-schema not used: ${strict.unsupported}`);
    }
  }
  const env: Record<string, string> = { CODEX_HOME: codexHome };
  if (ctx.apiKey) env.CODEX_API_KEY = ctx.apiKey;
  // codex's own Linux sandbox is bubblewrap: it needs user namespaces inside the agent jail (not when it is off).
  const userNamespaces = (ctx.options.sandbox ?? "workspace-write") !== "danger-full-access";
  return { args: codexArgs(ctx, schemaFile), env, notes, ...(userNamespaces ? { userNamespaces } : {}) };
}
