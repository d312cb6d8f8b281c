/**
 * runJob: one skill job, straight through core's job hooks (the data path in core's hooks.ts), one named step each:
 *   checkJobRequest -> openJob (run folder, run.json) -> copyUploads -> resolveInputs (job.resolveInput)
 *   -> renderPrompt (job.renderPrompt) -> [a dry run stops here] -> prepareRuntime (job.prepareRuntime)
 *   -> runEngine (job.execute[engine], streaming job.event) -> collectOutput (job.collectArtifacts) -> closeJob (runEnd)
 *
 * Problems with the request itself that are found before a run folder exists (unknown skill, engine the skill
 * does not support, no engine plugin) are thrown as SkillrigErrors; everything after that ends in a JobResult
 * with status "failed" and `error` (the run folder keeps what happened).
 */
import {
  runsFolderOf,
  type EngineEvent,
  type JobRequest,
  type JobResult,
  type JobWork,
  type PromptRendering,
  type Runner,
  type SkillManifest,
} from "@skillrig/core";
import { jobError } from "./job-errors.js";
import { closeJob, openJob } from "./job-record.js";
import { checkJobRequest } from "./job-request.js";
import { collectOutput, prepareRuntime, renderPrompt, resolveInputs, runEngine } from "./job-steps.js";
import { copyUploads } from "./job-uploads.js";

export { REQUEST_ERROR_CODES } from "./job-errors.js";

export interface RunJobOptions {
  /** The skill, already loaded (e.g. from a path); default: `resolveSkill(runner, request.skill_id)`. */
  skill?: SkillManifest;
  /** Where run folders go; default core's `runsFolderOf` ($SKILLRIG_RUNS_DIR, else the config's `runs_dir`, else `.skillrig/runs`). */
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

export async function runJob(runner: Runner, request: JobRequest, options: RunJobOptions = {}): Promise<JobResult> {
  const skill = checkJobRequest(runner, request, { skill: options.skill });
  const job = openJob(runner, request, skill, { ...options, runsDir: options.runsDir ?? runsFolderOf(runner) });
  try {
    const uploadProblems = copyUploads(request, skill, job.work.run, runner.cwd);
    const inputs = await resolveInputs(runner, job, uploadProblems);
    const prompt = await renderPrompt(runner, job);
    options.onPrompt?.({ ...inputs, prompt, work: job.work });
    if (request.options?.dry_run !== true) {
      const runtime = await prepareRuntime(runner, job);
      const outcome = await runEngine(runner, job, inputs, prompt, runtime);
      await collectOutput(runner, job, outcome);
    }
    job.result.status = "succeeded";
  } catch (error) {
    // A cancel (the caller's signal, not the job's own time limit) ends as canceled whatever step it stopped.
    const canceled = options.signal?.aborted === true;
    job.result.status = canceled ? "canceled" : "failed";
    job.result.error = jobError(error, canceled).toJSON();
  }
  return closeJob(runner, job);
}
