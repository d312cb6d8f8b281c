/**
 * runJob: one skill job, straight through core's job hooks (the data path in core's hooks.ts):
 *   [run folder, uploads] -> job.resolveInput -> job.renderPrompt -> [dry run stops here]
 *   -> [Python env] -> job.execute[engine] (streams job.event) -> job.collectArtifacts -> runEnd
 *
 * Problems with the request itself that are found before a run folder exists (unknown skill, engine the skill
 * does not support, no engine plugin) are thrown as SkillrigErrors; everything after that ends in a JobResult
 * with status "failed" and `error` (the run folder keeps what happened).
 */
import { copyFileSync, createWriteStream, existsSync, statSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import {
  escapePointerToken,
  isSkillrigError,
  SkillrigError,
  type EngineEvent,
  type EngineOutcome,
  type ErrorCode,
  type JobInputResolution,
  type JobRequest,
  type JobResult,
  type JobWork,
  type PromptRendering,
  type Runner,
  type SkillManifest,
  type Violation,
} from "@skillrig/core";
import { jobWarnings } from "./job-state.js";
import { resolveSkill } from "./load-skill.js";
import { displayPath, isSafeRelativePath } from "./paths.js";
import { ensurePythonEnv } from "./python-env.js";
import { MISSING_FILE_RULE } from "./resolve-input.js";
import { createRunFolder, installedSkillDir, installSkill, newJobId } from "./run-folder.js";
import { fileInputNames, unsupportedEngineMessage } from "./protocol.js";

export interface RunJobOptions {
  /** The skill, already loaded (e.g. from a path); default: `resolveSkill(runner, request.skill_id)`. */
  skill?: SkillManifest;
  /** Where run folders go; default the config's `runs_dir` (relative to the config file) or `.skillrig/runs`. */
  runsDir?: string;
  jobId?: string;
  signal?: AbortSignal;
  /** Called for every engine event, after the `job.event` taps. */
  onEvent?: (event: EngineEvent, work: JobWork) => void;
  /** Refuse to run the engine outside the agent jail (the jobs server, unless `server.allow_unjailed_engines`). */
  requireEngineJail?: boolean;
  /** Called once the prompt is rendered, with the resolved input and parameters (what `--dry-run` shows). */
  onPrompt?: (info: { input: Record<string, unknown>; parameter: Record<string, unknown>; prompt: PromptRendering; work: JobWork }) => void;
}

/** Error codes that mean "the request was wrong" (the CLI exits 2 for these), as opposed to "the job failed". */
export const REQUEST_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "input_missing_file",
  "input_invalid",
  "parameter_invalid",
  "template_error",
  "invalid_skill",
  "skill_not_found",
  "engine_not_found",
  "invalid_config",
  "usage",
]);

export function runsDirOf(runner: Runner): string {
  return resolve(runner.configDir, runner.config.runs_dir ?? ".skillrig/runs");
}

function requestError(violations: Violation[]): SkillrigError {
  const code: ErrorCode = violations.some((v) => v.rule === MISSING_FILE_RULE)
    ? "input_missing_file"
    : violations.some((v) => v.pointer?.startsWith("/input") || v.pointer?.startsWith("/files"))
      ? "input_invalid"
      : "parameter_invalid";
  const lines = violations.map((v) => `  ${v.pointer || "(root)"}: ${v.message}`);
  const first = violations[0];
  return new SkillrigError(
    code,
    `the job's ${code === "parameter_invalid" ? "parameters are" : "input is"} invalid:\n${lines.join("\n")}`,
    {
      file: first?.file,
      pointer: first?.pointer,
      field: first?.field,
      violations,
    },
  );
}

function engineError(outcome: EngineOutcome, engine: string): SkillrigError {
  const kind = outcome.failure?.kind ?? "crash";
  const reported = outcome.details?.errorCode;
  const code: ErrorCode =
    reported === "sandbox_unavailable"
      ? "sandbox_unavailable"
      : kind === "canceled"
        ? "canceled"
        : kind === "auth"
          ? "engine_auth_failed"
          : kind === "timeout" || kind === "idle_timeout"
            ? "timeout"
            : kind === "not_found"
              ? "engine_not_found"
              : "engine_failed";
  return new SkillrigError(code, `engine "${engine}" failed (${kind}): ${outcome.failure?.message ?? "no reason given"}`, {
    details: { kind, exitCode: outcome.exitCode, signal: outcome.signal, ...(outcome.details ?? {}) },
  });
}

/**
 * A job runs unattended: nobody answers an agent's questions. A skill that only runs interactively would ask, wait
 * and end as malformed_output minutes later; it is refused before anything runs.
 */
function refuseInteractiveOnly(skill: SkillManifest): void {
  const modes = skill.runner.execution_modes;
  if (!Array.isArray(modes) || modes.length === 0 || modes.includes("auto")) return;
  throw new SkillrigError(
    "invalid_skill",
    `skill "${skill.id}" needs interactive answers (execution_modes: ${JSON.stringify(modes)}), and skillrig runs jobs unattended: nobody would answer the agent's questions`,
    {
      file: displayPath(skill.runnerFile),
      pointer: "/execution_modes",
      field: "execution_modes",
      hint: 'add "auto" to execution_modes if the skill can work without asking (its SKILL.md then tells the agent not to ask)',
    },
  );
}

const PROBLEM_ORDER = ["result_missing", "artifact_missing", "schema_violation"] as const;

/** Copies `request.files` into uploads/; returns the problems instead of throwing so all are listed. */
function copyUploads(request: JobRequest, skill: SkillManifest, uploads: string, cwd: string): Violation[] {
  const violations: Violation[] = [];
  const fileFields = new Set(fileInputNames(skill));
  for (const [field, hostPath] of Object.entries(request.files ?? {})) {
    const at = `/files/${escapePointerToken(field)}`;
    if (!isSafeRelativePath(field) || field.includes("/") || field.includes("\\")) {
      violations.push({ pointer: at, field, message: `"${field}" is not a valid field name for an upload` });
      continue;
    }
    if (!fileFields.has(field)) {
      violations.push({
        pointer: at,
        field,
        message: `"${field}" is not a file input of skill "${skill.id}"; file inputs: ${[...fileFields].join(", ") || "none"}`,
      });
      continue;
    }
    const source = resolve(cwd, hostPath);
    if (!existsSync(source) || !statSync(source).isFile()) {
      violations.push({
        pointer: at,
        field,
        file: hostPath,
        rule: MISSING_FILE_RULE,
        message: `the file for "${field}", ${hostPath}, does not exist or is not a file`,
      });
      continue;
    }
    copyFileSync(source, resolve(uploads, field));
  }
  return violations;
}

export async function runJob(runner: Runner, request: JobRequest, options: RunJobOptions = {}): Promise<JobResult> {
  const started = new Date();
  if (typeof request.engine !== "string" || request.engine === "") {
    throw new SkillrigError("usage", "the job names no engine", { field: "engine", hint: "skillrig run <skill> --engine <name>" });
  }
  const skill = options.skill ?? resolveSkill(runner, request.skill_id);
  const engine = request.engine;
  const unsupported = unsupportedEngineMessage(skill, engine);
  if (unsupported) {
    throw new SkillrigError("engine_not_found", unsupported, {
      file: displayPath(skill.runnerFile),
      pointer: "/engines",
      field: "engine",
    });
  }
  const dryRun = request.options?.dry_run === true;
  // A dry run only renders the prompt: it shows an interactive skill's prompt too.
  if (!dryRun) refuseInteractiveOnly(skill);
  if (!dryRun) runner.requireClaim("engine", engine, { field: "engine" });

  const jobId = options.jobId ?? newJobId(skill.id, started);
  const run = createRunFolder(options.runsDir ?? runsDirOf(runner), jobId, skill);
  const timeoutMs =
    request.options?.timeout_ms ??
    (typeof (skill.runner.runtime as { default_options?: { hard_timeout_seconds?: number } } | undefined)?.default_options
      ?.hard_timeout_seconds === "number"
      ? (skill.runner.runtime as { default_options: { hard_timeout_seconds: number } }).default_options.hard_timeout_seconds * 1000
      : undefined);
  const signals = [options.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : new AbortController().signal;
  // One append stream per job rather than a synchronous append per event: an engine streams many events, and a
  // jobs server runs many jobs per thread. The stream is ended (flushed) before result.json is written.
  const events = createWriteStream(resolve(run.logs, "events.jsonl"), { flags: "a" });
  events.on("error", () => undefined);

  const work: JobWork = {
    jobId,
    request,
    skill,
    engine,
    run,
    engineOptions: { ...(request.options?.engine ?? {}) },
    context: {
      job_id: jobId,
      skill_id: skill.id,
      engine,
      run_dir: run.workspace,
      workspace_dir: run.workspace,
      skill_dir: installedSkillDir(run, skill.id),
      uploads_dir: run.uploads,
      run_folder: run.root,
    },
    env: {},
    requireEngineJail: options.requireEngineJail,
    signal,
    emit(event) {
      if (events.writable) events.write(`${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
      runner.hooks.job.event.call(event, work);
      options.onEvent?.(event, work);
    },
  };
  const uploadNames = Object.fromEntries(Object.entries(request.files ?? {}).map(([f, p]) => [f, { original_name: basename(p), from: p }]));
  writeFileSync(
    resolve(run.root, "run.json"),
    JSON.stringify(
      {
        job_id: jobId,
        skill_id: skill.id,
        skill_version: skill.version,
        skill_dir: skill.dir,
        engine,
        created_at: started.toISOString(),
        request,
        uploads: uploadNames,
      },
      null,
      2,
    ),
  );

  const result: JobResult = {
    job_id: jobId,
    skill_id: skill.id,
    engine,
    status: "running",
    artifacts: [],
    run_dir: run.root,
    timings: { started_at: started.toISOString() },
  };
  let engineMs: number | undefined;
  try {
    const uploadProblems = copyUploads(request, skill, run.uploads, runner.cwd);
    const initial: JobInputResolution = { value: {}, violations: uploadProblems, parameter: {}, warnings: [] };
    const resolution = await runner.hooks.job.resolveInput.promise(initial, work);
    for (const w of resolution.warnings ?? []) jobWarnings(work).push(w);
    if (resolution.violations.length > 0) throw requestError(resolution.violations);
    const input = resolution.value;
    const parameter = resolution.parameter;
    work.context.input = input;
    work.context.parameter = parameter;

    const prompt: PromptRendering = await runner.hooks.job.renderPrompt.promise({ text: "", source: "none" }, work);
    writeFileSync(run.promptFile, prompt.text);
    if (prompt.skillMd !== undefined) {
      writeFileSync(resolve(run.root, "SKILL.patched.md"), prompt.skillMd);
      installSkill(run, skill.id, prompt.skillMd);
    }
    result.prompt = prompt.text;
    options.onPrompt?.({ input, parameter, prompt, work });
    if (dryRun) {
      result.status = "succeeded";
      return result;
    }

    const dependencies = skill.runtime?.dependencies ?? [];
    if (dependencies.length > 0) {
      const py = runner.config.skills?.python ?? {};
      const env = await ensurePythonEnv(dependencies, {
        interpreter: py.interpreter,
        version: skill.runtime?.version,
        findLinks: (py.find_links ?? []).map((f) => resolve(runner.configDir, f)),
        indexUrl: py.index_url,
        envDir: resolve(runner.configDir, py.env_dir ?? ".skillrig/python-envs"),
        signal,
      });
      for (const w of env.warnings) jobWarnings(work).push(w);
      work.env = { ...work.env, PATH: `${env.bin}:${process.env.PATH ?? ""}`, VIRTUAL_ENV: env.dir };
      work.context.python_env = env.dir;
      work.emit({
        type: "log",
        stream: "skillrig",
        line: `${env.reused ? "reusing" : "built"} Python ${env.pythonVersion} environment ${env.dir} for ${dependencies.join(", ")}`,
      });
    }

    result.status = "running";
    const engineStart = Date.now();
    // Checked before the run folder was made (requireClaim); a tap that returns nothing is a broken engine plugin.
    const outcome = await runner.hooks.job.execute.for(engine).promise({ work, input, parameter, prompt });
    engineMs = Date.now() - engineStart;
    if (!outcome) {
      throw new SkillrigError("engine_not_found", `no plugin ran engine "${engine}" for this job`, { field: "engine" });
    }
    result.usage = outcome.usage;
    result.engine_version = outcome.engineVersion;
    // How the engine was confined (engine-kit's agent jail), and a visible warning when it was not.
    const confinement = outcome.details?.confinement as JobResult["engine_confinement"] | undefined;
    if (confinement) result.engine_confinement = confinement;
    for (const w of (outcome.details?.confinementWarnings as string[] | undefined) ?? []) jobWarnings(work).push(w);
    if (outcome.rawOutput !== undefined) writeFileSync(resolve(run.logs, "raw-output.txt"), outcome.rawOutput);
    for (const r of outcome.repairs ?? []) jobWarnings(work).push(`engine output repaired: ${r}`);
    if (!outcome.ok) {
      if (signal.aborted && outcome.failure?.kind === "canceled") result.status = "canceled";
      throw engineError(outcome, engine);
    }

    const collection = await runner.hooks.job.collectArtifacts.promise({ output: outcome.output, artifacts: [], problems: [] }, work);
    result.output = collection.output;
    result.artifacts = collection.artifacts;
    if (collection.output !== undefined) writeFileSync(run.outputFile, `${JSON.stringify(collection.output, null, 2)}\n`);
    if (collection.problems.length > 0) {
      const problems = [...collection.problems].sort((a, b) => PROBLEM_ORDER.indexOf(a.code) - PROBLEM_ORDER.indexOf(b.code));
      const first = problems[0]!;
      throw new SkillrigError(
        first.code,
        problems.length === 1 ? first.message : `${first.message} (and ${problems.length - 1} more problems)`,
        {
          file: displayPath(run.outputFile),
          pointer: first.pointer,
          violations: problems.map((p) => ({ pointer: p.pointer, message: p.message, rule: p.code })),
        },
      );
    }
    result.status = "succeeded";
    return result;
  } catch (error) {
    const err = isSkillrigError(error)
      ? error
      : new SkillrigError("unhandled", `unexpected error while running the job: ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
        });
    // A cancel (the caller's signal, not the job's own time limit) ends as canceled whatever step it stopped.
    const canceled = options.signal?.aborted === true;
    result.status = canceled ? "canceled" : "failed";
    result.error = (
      canceled && err.code !== "canceled"
        ? new SkillrigError("canceled", `the job was canceled while it ran (${err.message})`, { cause: err })
        : err
    ).toJSON();
    return result;
  } finally {
    const finished = new Date();
    result.timings.finished_at = finished.toISOString();
    result.timings.duration_ms = finished.getTime() - started.getTime();
    if (engineMs !== undefined) {
      result.timings.engine_ms = engineMs;
      result.timings.overhead_ms = result.timings.duration_ms - engineMs;
    }
    const warnings = jobWarnings(work);
    if (warnings.length > 0) result.warnings = [...warnings];
    await new Promise<void>((done) => events.end(done));
    writeFileSync(resolve(run.root, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
    await runner.hooks.runEnd.promise({
      kind: "job",
      id: jobId,
      startedAt: started,
      ok: result.status === "succeeded",
      durationMs: result.timings.duration_ms,
      result,
    });
  }
}
