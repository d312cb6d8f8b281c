/**
 * A job's record while it runs: its run folder (run.json first), the event log every engine event goes to, the
 * JobWork the hooks see, and the JobResult it ends with. `openJob` makes them; `closeJob` writes the result
 * (timings, warnings, result.json) and fires `runEnd`, whatever happened in between.
 */
import { createWriteStream, lstatSync, readFileSync, writeFileSync, type WriteStream } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { EngineEvent, JobRequest, JobResult, JobWork, Runner, SkillManifest } from "@skillrig/core";
import { jobCostControls } from "./cost-config-section.js";
import { createRunFolder, installedSkillDir, newJobId } from "./run-folder.js";

export interface JobRecordOptions {
  jobId?: string;
  runsDir: string;
  /** The caller's cancel. */
  signal?: AbortSignal;
  requireEngineJail?: boolean;
  /** Called for every engine event, after the `job.event` taps. */
  onEvent?: (event: EngineEvent, work: JobWork) => void;
}

export interface JobRecord {
  work: JobWork;
  result: JobResult;
  startedAt: Date;
  /** Time spent in `job.execute`, once the engine ran. */
  engineMs?: number;
  readonly warnings: string[];
  /** Skills named by the engine's `skill_activated` events, distinct, in the order first seen. */
  readonly skillsActivated: string[];
  readonly events: WriteStream;
  /** The job's time limit, cleared when the job closes. */
  readonly timer?: NodeJS.Timeout;
}

/** The job's own time limit: the request's, else the skill's `runtime.default_options.hard_timeout_seconds`. */
function timeLimitMs(request: JobRequest, skill: SkillManifest): number | undefined {
  if (request.options?.timeout_ms !== undefined) return request.options.timeout_ms;
  const seconds = (skill.runner.runtime as { default_options?: { hard_timeout_seconds?: unknown } } | undefined)?.default_options
    ?.hard_timeout_seconds;
  return typeof seconds === "number" ? seconds * 1000 : undefined;
}

export function openJob(runner: Runner, request: JobRequest, skill: SkillManifest, options: JobRecordOptions): JobRecord {
  const startedAt = new Date();
  const engine = request.engine;
  // The run folder's name is in the agent's working directory path: a job that does not name its skill to the agent
  // (skill_install "discoverable" or "none") gets an id without the skill's id in it.
  const named = (request.options?.skill_install ?? "referenced") === "referenced";
  const jobId = options.jobId ?? newJobId(named ? skill.id : "job", startedAt);
  const run = createRunFolder(options.runsDir, jobId, skill);
  const timeoutMs = timeLimitMs(request, skill);
  // The job's time limit is a timer of the job's own, not AbortSignal.timeout(): Node keeps a timeout signal only
  // weakly, and one reachable only through AbortSignal.any() can be collected before it fires (the job then never
  // ends). The abort reason is the one AbortSignal.timeout() gives, a TimeoutError, so a time limit is not a cancel.
  const timeLimit = new AbortController();
  const timer = timeoutMs
    ? setTimeout(() => timeLimit.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), timeoutMs)
    : undefined;
  // One append stream per job rather than a synchronous append per event: an engine streams many events, and a
  // jobs server runs many jobs per thread. closeJob ends (flushes) it before result.json is written.
  const events = createWriteStream(resolve(run.logs, "events.jsonl"), { flags: "a" });
  events.on("error", () => undefined);
  const warnings: string[] = [];
  const skillsActivated: string[] = [];

  const work: JobWork = {
    jobId,
    request,
    skill,
    engine,
    run,
    skillInstall: request.options?.skill_install ?? "referenced",
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
    requireEngineJail: options.requireEngineJail,
    signal: options.signal ? AbortSignal.any([options.signal, timeLimit.signal]) : timeLimit.signal,
    cost: jobCostControls(runner.config.cost, request),
    emit(event) {
      if (event.type === "skill_activated" && !skillsActivated.includes(event.skill)) skillsActivated.push(event.skill);
      if (events.writable) events.write(`${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
      runner.hooks.job.event.call(event, work);
      options.onEvent?.(event, work);
    },
    warn(message) {
      if (!warnings.includes(message)) warnings.push(message);
    },
  };
  const uploads = Object.fromEntries(Object.entries(request.files ?? {}).map(([f, p]) => [f, { original_name: basename(p), from: p }]));
  const runJson = {
    job_id: jobId,
    skill_id: skill.id,
    skill_version: skill.version,
    skill_dir: skill.dir,
    engine,
    created_at: startedAt.toISOString(),
    request,
    uploads,
  };
  writeFileSync(resolve(run.root, "run.json"), JSON.stringify(runJson, null, 2));
  const result: JobResult = {
    job_id: jobId,
    skill_id: skill.id,
    engine,
    status: "running",
    artifacts: [],
    run_dir: run.root,
    timings: { started_at: startedAt.toISOString() },
  };
  return { work, result, startedAt, warnings, skillsActivated, events, timer };
}

/** A file input as the job got it: its field, the name it was given (a local file's own name, else the field) and size. */
export interface RecordedFile {
  field: string;
  name: string;
  bytes: number;
  /** Where it is in the run folder: `uploads/<field>`. */
  path: string;
}

/**
 * Adds what the job really got to run.json, once the inputs are resolved: the input (a file input as its
 * `uploads/<field>` path, not the host's), the parameters with the schema's defaults applied, and each file input's
 * name and size. run.json keeps the request as sent, so both what was asked and what ran are on record.
 */
export function recordResolvedInputs(job: JobRecord, input: Record<string, unknown>, parameter: Record<string, unknown>): void {
  const file = resolve(job.work.run.root, "run.json");
  const runJson = JSON.parse(readFileSync(file, "utf8")) as { uploads?: Record<string, { original_name?: string }> };
  const files: RecordedFile[] = [];
  const shown: Record<string, unknown> = { ...input };
  for (const [field, value] of Object.entries(input)) {
    const upload = join(job.work.run.uploads, field);
    if (value !== upload) continue;
    const info = lstatSync(upload, { throwIfNoEntry: false });
    if (!info?.isFile()) continue;
    const path = `uploads/${field}`;
    shown[field] = path;
    files.push({ field, name: runJson.uploads?.[field]?.original_name ?? field, bytes: info.size, path });
  }
  writeFileSync(file, JSON.stringify({ ...runJson, resolved: { input: shown, parameter, files } }, null, 2));
}

export async function closeJob(runner: Runner, job: JobRecord): Promise<JobResult> {
  const { result } = job;
  clearTimeout(job.timer);
  const finished = new Date();
  result.timings.finished_at = finished.toISOString();
  result.timings.duration_ms = finished.getTime() - job.startedAt.getTime();
  if (job.engineMs !== undefined) {
    result.timings.engine_ms = job.engineMs;
    result.timings.overhead_ms = result.timings.duration_ms - job.engineMs;
  }
  if (job.warnings.length > 0) result.warnings = [...job.warnings];
  await new Promise<void>((done) => job.events.end(done));
  writeFileSync(resolve(job.work.run.root, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
  await runner.hooks.runEnd.promise({
    kind: "job",
    id: job.work.jobId,
    startedAt: job.startedAt,
    ok: result.status === "succeeded",
    durationMs: result.timings.duration_ms,
    result,
  });
  return result;
}
