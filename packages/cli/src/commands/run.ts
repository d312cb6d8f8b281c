/**
 * `skillrig run [<skill>] --engine <name> --input k=v --file field=path --param k=v [--dry-run]`
 * `skillrig run <plain-skill> --engine <name> --prompt "..." | --prompt-file F [--file data/x.csv=./x.csv]`
 * Runs one skill job through @skillrig/skills' runJob. With no skill named, runs the config's `run` section
 * (flags add to / override it). Values are JSON when they parse as JSON, else strings; a value for a field whose
 * schema type is "string" stays the text as typed (`--param language=123` is "123").
 * Exit codes: 0 the job succeeded (or the dry run rendered), 1 the job failed, 2 invalid input, config or usage.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Option, type Command } from "commander";
import {
  runsFolderOf,
  SkillrigError,
  type Runner,
  type EngineEvent,
  type JobRequest,
  type JobResult,
  type LoadedConfig,
  type SkillInstall,
  type SkillManifest,
} from "@skillrig/core";
import { REQUEST_ERROR_CODES, runJob } from "@skillrig/skills";
import { propertyTypes } from "@skillrig/skills/protocol";
import type { CommandModule } from "../command.js";
import type { CommandContext } from "../context.js";
import { ExitCode } from "../exit-codes.js";
import { catchInterrupts } from "../interrupts.js";
import { reportError } from "../output.js";
import { skillFromArgument } from "./skills.js";
import { recordRun } from "../run-record.js";
import { seconds, startHeartbeat } from "../heartbeat.js";
import { usageLine } from "../usage-line.js";
import { budgetFlagValues } from "../invocation-budget-flags.js";

interface RunOptions {
  engine?: string;
  input: string[];
  file: string[];
  param: string[];
  dryRun?: boolean;
  timeout?: string;
  runsDir?: string;
  record?: boolean;
  prompt?: string;
  promptFile?: string;
  skillInstall?: SkillInstall;
  maxCostUsd?: string;
  maxTokens?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function splitPair(text: string, flag: string): [string, string] {
  const eq = text.indexOf("=");
  if (eq <= 0) {
    throw new SkillrigError("usage", `${flag} ${text}: expected key=value`, {
      field: flag,
      hint: `${flag} name=value (values are JSON when they parse, else text)`,
    });
  }
  return [text.slice(0, eq), text.slice(eq + 1)];
}

function parseValue(raw: string, schemaType: unknown): unknown {
  if (schemaType === "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function pairs(list: string[], flag: string, types: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of list) {
    const [key, raw] = splitPair(item, flag);
    out[key] = parseValue(raw, types[key]);
  }
  return out;
}

function eventLine(event: EngineEvent): string | undefined {
  switch (event.type) {
    case "message":
      return event.role === "assistant" && !event.delta ? `[${event.role}] ${event.text}` : undefined;
    case "tool_call":
      return `[tool] ${event.tool}${event.status ? ` (${event.status})` : ""}`;
    case "file_change":
      return `[file] ${event.kind} ${event.path}`;
    case "status":
      return `[status] ${event.status}${event.message ? `: ${event.message}` : ""}`;
    case "log":
      return event.stream === "skillrig" ? `[skillrig] ${event.line}` : undefined;
    default:
      return undefined;
  }
}

function readPromptFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new SkillrigError(
      "usage",
      `--prompt-file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      {
        field: "prompt",
        file,
      },
    );
  }
}

/** One line before the job: the skill, the engine, and whether a mock model (a scripted scenario) plays the model. */
function runHeader(runner: Runner, skill: string, engine: string, cwd: string): string {
  const mock = runner.claimant("engine", engine)?.info?.mock_model;
  const where = typeof mock === "string" && mock !== "an inline scenario" ? relative(cwd, resolve(runner.configDir, mock)) || mock : mock;
  return `skill ${skill}, engine ${engine}${where ? ` (mock model: ${where})` : ""}`;
}

/** Errors in what was typed on the command line (not in the skill, its templates or the config). */
const TYPED_REQUEST_ERRORS = new Set(["input_missing_file", "input_invalid", "parameter_invalid", "usage"]);

function exitCodeOf(result: JobResult): number {
  if (result.status === "succeeded") return ExitCode.Success;
  // The shell's convention for a command ended by Ctrl-C.
  if (result.status === "canceled") return 130;
  return result.error && REQUEST_ERROR_CODES.has(result.error.code) ? ExitCode.InvalidInput : ExitCode.Failure;
}

export const runCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("run [skill]")
      .description("Run a skill as a job with an engine: inputs, uploaded files, parameters, prompt, output, artifacts")
      .option("-e, --engine <name>", "engine plugin to run the skill with (gemini, codex, claude, ...)")
      .option("-i, --input <key=value>", "an inline input (x-input-source: inline); repeatable", collect, [])
      .option(
        "-f, --file <field=path>",
        "upload a file as uploads/<field> for a file input (a plain skill: copy it to <path in the workspace>); repeatable",
        collect,
        [],
      )
      .option("--prompt <text>", "the prompt of a plain Agent Skill (SKILL.md, no assets/runner.json), as the agent gets it")
      .option("--prompt-file <file>", "read the plain skill's prompt from a file")
      .addOption(
        new Option("--skill-install <mode>", "how the agent gets the skill: named in the context file, only discoverable, or not at all")
          .choices(["referenced", "discoverable", "none"])
          .default(undefined),
      )
      .option("-p, --param <key=value>", "a parameter; repeatable", collect, [])
      .option("--dry-run", "resolve inputs and parameters and render the prompt, without running an engine")
      .addOption(new Option("--timeout <ms>", "job time limit in milliseconds"))
      .option("--max-cost-usd <usd>", "stop the engine once its model calls cost this much (error cost_limit)")
      .option("--max-tokens <n>", "stop the engine once its model calls used this many tokens (error cost_limit)")
      .option("--runs-dir <dir>", "where run folders go (default: runs_dir of the config, else .skillrig/runs)")
      .option("--no-record", "put the run folder in a temporary folder instead of the runs folder, unrecorded")
      .addHelpText(
        "after",
        '\nWith no <skill>, runs the config\'s "run" section. <skill> is an id in skills.roots or a path to a skill folder.\nExit codes: 0 job succeeded, 1 job failed, 2 invalid input, config or usage.',
      )
      .action((skillArg: string | undefined, options: RunOptions, command: Command) =>
        runAction(context(command), skillArg, options, setExit),
      );
  },
};

/** What the dry run shows besides the prompt: the resolved input and parameters, and the prompt's source. */
interface ShownPrompt {
  input: unknown;
  parameter: unknown;
  source: string;
  skillMd?: string;
}

/** `skillrig run`: build the request, run the job, keep or discard its run folder, report it, set the exit code. */
async function runAction(
  ctx: CommandContext,
  skillArg: string | undefined,
  options: RunOptions,
  setExit: (code: number) => void,
): Promise<void> {
  const loaded = await ctx.config();
  const { skill, request } = await jobRequestOf(ctx, loaded, skillArg, options);
  const runner = await ctx.runner();
  ctx.out.info(runHeader(runner, skill.id, request.engine, ctx.cwd));
  const { result, shown } = await runWithProgress(ctx, runner, skill, request, options);
  for (const w of result.warnings ?? []) ctx.out.warn(w);
  // A request the skill refuses (a bad --param value, a missing --file) is a usage error, as a mistyped option
  // is: nothing ran, so nothing is recorded, and its run folder (which `skillrig runs` would list) goes.
  const refused = result.status === "failed" && result.error !== undefined && TYPED_REQUEST_ERRORS.has(result.error.code);
  if (refused) await rm(result.run_dir, { recursive: true, force: true });
  else if (options.record !== false && !request.options?.dry_run) await recordRun(ctx, "run", result, new Date(result.timings.started_at));
  reportJob(ctx, skill, request, result, shown, refused);
  setExit(exitCodeOf(result));
}

/** The job request from the named skill (or the config's `run` section) and the flags, checked before anything runs. */
async function jobRequestOf(
  ctx: CommandContext,
  loaded: LoadedConfig,
  skillArg: string | undefined,
  options: RunOptions,
): Promise<{ skill: SkillManifest; request: JobRequest }> {
  const defaults = skillArg === undefined ? loaded.config.run : undefined;
  if (skillArg === undefined && !defaults) {
    throw new SkillrigError("usage", 'name a skill (skillrig run <skill> --engine <name>), or add a "run" section to skillrig.config', {
      field: "skill",
    });
  }
  const skill: SkillManifest = await skillFromArgument(ctx, skillArg ?? defaults!.skill);
  const engine = options.engine ?? defaults?.engine;
  if (!engine) throw new SkillrigError("usage", "--engine is required (the engine plugin to run the skill with)", { field: "engine" });

  const files: Record<string, string> = {};
  for (const [field, path] of Object.entries(defaults?.files ?? {})) files[field] = resolve(loaded.dir, path);
  for (const item of options.file) {
    const [field, path] = splitPair(item, "--file");
    files[field] = resolve(ctx.cwd, path);
  }
  const timeout = options.timeout !== undefined ? Number(options.timeout) : defaults?.timeout_ms;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout <= 0)) {
    throw new SkillrigError("usage", `--timeout ${options.timeout}: expected a positive number of milliseconds`, {
      field: "timeout",
    });
  }
  const { maxCostUsd, maxTokens } = budgetFlagValues(options);
  if (options.prompt !== undefined && options.promptFile !== undefined)
    throw new SkillrigError("usage", "give the prompt once: --prompt or --prompt-file, not both", { field: "prompt" });
  const prompt = options.promptFile !== undefined ? readPromptFile(resolve(ctx.cwd, options.promptFile)) : options.prompt;
  const request: JobRequest = {
    skill_id: skill.id,
    engine,
    input: { ...(defaults?.input ?? {}), ...pairs(options.input, "--input", propertyTypes(skill.schemas.input?.schema)) },
    parameter: { ...(defaults?.parameter ?? {}), ...pairs(options.param, "--param", propertyTypes(skill.schemas.parameter?.schema)) },
    files,
    ...(prompt !== undefined ? { prompt } : {}),
    options: {
      dry_run: options.dryRun === true,
      ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
      ...(options.skillInstall !== undefined ? { skill_install: options.skillInstall } : {}),
      ...(maxCostUsd !== undefined ? { max_cost_usd: maxCostUsd } : {}),
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    },
  };
  return { skill, request };
}

/** Where the run folder goes: a temporary folder (--no-record), --runs-dir, else the runs folder. */
function runsDirOf(ctx: CommandContext, runner: Runner, options: RunOptions): string {
  if (options.record === false) return mkdtempSync(join(tmpdir(), "skillrig-run-"));
  return options.runsDir !== undefined ? resolve(ctx.cwd, options.runsDir) : runsFolderOf(runner);
}

/** Runs the job with its events as progress lines, a heartbeat when it is quiet, and Ctrl-C / SIGTERM as cancel. */
async function runWithProgress(
  ctx: CommandContext,
  runner: Runner,
  skill: SkillManifest,
  request: JobRequest,
  options: RunOptions,
): Promise<{ result: JobResult; shown: ShownPrompt | undefined }> {
  // Ctrl-C (SIGINT) or SIGTERM cancels the job: the engine's process tree is killed and result.json still
  // says what happened (status canceled, error code canceled). A second signal ends skillrig at once.
  const cancel = catchInterrupts({ stopping: "the job", warn: (line) => ctx.out.warn(line) });
  const heartbeat = startHeartbeat(
    (line) => ctx.out.info(line),
    (elapsed, quiet) => `... still running: engine ${request.engine}, ${seconds(elapsed)} so far, no event for ${seconds(quiet)}`,
  );
  // The progress lines are an observer of the job's events, as the console reporter is of a task's cases.
  runner.hooks.job.event.tap("skillrig run", (event) => {
    const line = eventLine(event);
    if (line) {
      heartbeat.touch();
      ctx.out.info(line);
    }
  });
  let shown: ShownPrompt | undefined;
  const result = await runJob(runner, request, {
    skill,
    signal: cancel.signal,
    runsDir: runsDirOf(ctx, runner, options),
    onPrompt: ({ input, parameter, prompt }) => {
      shown = { input, parameter, source: prompt.source, skillMd: prompt.skillMd };
    },
  }).finally(() => {
    heartbeat.stop();
    cancel.release();
  });
  return { result, shown };
}

/** The result: JSON, the dry run's input, parameters and prompt, or the job's output and artifacts; then usage and error. */
function reportJob(
  ctx: CommandContext,
  skill: SkillManifest,
  request: JobRequest,
  result: JobResult,
  shown: ShownPrompt | undefined,
  refused: boolean,
): void {
  if (ctx.out.json) {
    ctx.out.result(
      request.options?.dry_run && shown ? { ...result, input: shown.input, parameter: shown.parameter, skill_md: shown.skillMd } : result,
    );
  } else if (result.status === "succeeded" && request.options?.dry_run && shown) {
    ctx.out.info(`dry run of skill "${skill.id}" with engine "${request.engine}"; run folder ${result.run_dir}`);
    ctx.out.result(undefined, dryRunText(shown, result));
  } else if (result.status === "succeeded") {
    ctx.out.info(`job ${result.job_id} succeeded in ${result.timings.duration_ms} ms; run folder ${result.run_dir}`);
    for (const a of result.artifacts) ctx.out.info(`artifact ${a.field} (${a.role}): ${a.path}`);
    // A plain skill's output is the agent's answer text: printed as is, not as a JSON string.
    ctx.out.result(result.output, typeof result.output === "string" ? result.output : undefined);
  } else if (!refused) {
    ctx.out.info(`job ${result.job_id} ${result.status}; run folder ${result.run_dir}`);
  }
  const used = ctx.out.json ? undefined : usageLine(result);
  if (used) ctx.out.info(used);
  if (result.error && !ctx.out.json) {
    const error = new SkillrigError(result.error.code, result.error.message, { ...result.error });
    reportError(error, false, ctx.out.streams);
  }
}

/** A dry run's text: the resolved input and parameters, and the rendered prompt with where it came from. */
function dryRunText(shown: ShownPrompt, result: JobResult): string {
  return [
    "== input ==",
    JSON.stringify(shown.input, null, 2),
    "== parameter ==",
    JSON.stringify(shown.parameter, null, 2),
    `== prompt (${shown.source === "default" ? "default template" : shown.source === "request" ? "as given" : `template ${shown.source}`}) ==`,
    result.prompt ?? "",
  ].join("\n");
}
