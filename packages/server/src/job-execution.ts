/**
 * The one place the server calls into the packages that do the work: @skillrig/skills (find, load and run skills),
 * @skillrig/oracle (validate a task, run it against a deliverable) and @skillrig/solve (one solve attempt). Everything else in the server deals only in
 * core's types, so the API, the queue and the uploads do not care how a job is run.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CaseVerdict, EngineEvent, JobRequest, JobResult, LoadedTask, Runner, SkillManifest, TaskReport } from "@skillrig/core";
import { findSkills, resolveSkill, runJob, skillRoots } from "@skillrig/skills";
import { resolveDeliverable, runTask, validateTask, validateTaskText } from "@skillrig/oracle";
import { loadSkill as loadSkillFolder } from "@skillrig/skills";
import { prepareSolveSkill, runAttempt, type AttemptResult } from "@skillrig/solve";

export interface SkillListing {
  skills: SkillManifest[];
  /** Skill folders that failed to load, with why: listed rather than hidden. */
  broken: Array<{ id: string; dir: string; error: { code: string; message: string } }>;
}

export interface RunSkillJobOptions {
  jobId: string;
  /** The folder that holds run folders; the job's is `<runsDir>/<jobId>`. */
  runsDir: string;
  signal: AbortSignal;
  onEvent: (event: EngineEvent) => void;
}

export interface RunOracleOptions {
  signal: AbortSignal;
  jobs?: number;
  /** Called with each case's verdict as it is decided. */
  onCase?: (verdict: CaseVerdict) => void;
}

/**
 * One attempt of a solve batch (`skillrig solve --server`): `task` is the task as the batch scores it (the cases
 * its reference solution fails already taken out by the client), `engine` the engine plugin, the report's label
 * and the options the client may set.
 */
export interface SolveAttemptRequest {
  /** The task's JSON text as the client sent it (numbers exactly as written); jobs stored before 0.2 have `task`. */
  task_text?: string;
  task?: unknown;
  engine: { name: string; label: string; options?: Record<string, unknown> };
  attempt: number;
  timeout_ms?: number;
}

export interface RunSolveAttemptOptions {
  /** The job's run folder: the prepared skill copy and the attempt's run folder go under it. */
  runDir: string;
  signal: AbortSignal;
  onEvent: (event: EngineEvent) => void;
  onCase?: (verdict: CaseVerdict) => void;
}

export interface JobExecution {
  listSkills(): SkillListing;
  /** The skill `id`; throws `skill_not_found`. */
  skill(id: string): SkillManifest;
  runSkillJob(request: JobRequest, options: RunSkillJobOptions): Promise<JobResult>;
  /** Validates a task given as JSON; throws `invalid_task` listing each violation with its pointer. */
  loadTask(task: unknown): LoadedTask;
  /** Parses and validates a task's JSON text as a local run reads a task file: values exact (`caseJson`), depth limited. */
  loadTaskText(text: string): LoadedTask;
  runOracle(loaded: LoadedTask, deliverableDir: string, options: RunOracleOptions): Promise<TaskReport>;
  runSolveAttempt(request: SolveAttemptRequest, options: RunSolveAttemptOptions): Promise<AttemptResult>;
}

/**
 * Loading a skill reads and checks every file of its package (schemas compiled, templates parsed): too slow to
 * repeat on every request. The loaded manifest is kept while the files it came from keep their mtime and size,
 * so an edited skill is picked up on the next request without a restart.
 */
function skillCache(runner: Runner) {
  const cache = new Map<string, { stamp: string; manifest: SkillManifest }>();
  const stampOf = (manifest: SkillManifest): string => {
    const files = [manifest.skillMdFile, manifest.runnerFile, ...Object.values(manifest.schemas).map((s) => s?.file)];
    return files
      .map((file) => {
        if (!file) return "-";
        try {
          const st = statSync(file);
          return `${st.mtimeMs}:${st.size}`;
        } catch {
          return "gone";
        }
      })
      .join("|");
  };
  return (id: string): SkillManifest => {
    const hit = cache.get(id);
    if (hit && existsSync(hit.manifest.dir) && stampOf(hit.manifest) === hit.stamp) return hit.manifest;
    const manifest = resolveSkill(runner, id);
    cache.set(id, { stamp: stampOf(manifest), manifest });
    return manifest;
  };
}

export function createJobExecution(runner: Runner): JobExecution {
  const loadSkill = skillCache(runner);
  // task.caseResult fires for every task run on this runner; each oracle run listens for its own deliverable folder,
  // each solve attempt for the folders under its run folder (the attempt's job id is not known in advance).
  const caseListeners = new Map<string, (verdict: CaseVerdict) => void>();
  runner.hooks.task.caseResult.tap("@skillrig/server", (verdict, work) => {
    const dir = work.run.deliverable.dir;
    for (const [folder, listener] of caseListeners) if (dir === folder || dir.startsWith(`${folder}/`)) listener(verdict);
  });
  const requireEngineJail = runner.config.server?.allow_unjailed_engines !== true;
  return {
    listSkills() {
      const listing: SkillListing = { skills: [], broken: [] };
      for (const found of findSkills(skillRoots(runner))) {
        try {
          listing.skills.push(loadSkill(found.id));
        } catch (error) {
          const e = error as { code?: string; message?: string };
          listing.broken.push({
            id: found.id,
            dir: found.dir,
            error: { code: e.code ?? "invalid_skill", message: e.message ?? String(error) },
          });
        }
      }
      return listing;
    },
    skill(id) {
      return loadSkill(id);
    },
    runSkillJob(request, options) {
      return runJob(runner, request, {
        // The cached manifest: its schemas are compiled once (see @skillrig/skills' compiled-schemas), not per job.
        skill: loadSkill(request.skill_id),
        // Engines run jailed on a server: an agent must not read other jobs, tokens or the server's data.
        requireEngineJail,
        jobId: options.jobId,
        runsDir: options.runsDir,
        signal: options.signal,
        onEvent: (event) => options.onEvent(event),
      });
    },
    loadTask(task) {
      return validateTask(task, "request body /task");
    },
    loadTaskText(text) {
      return validateTaskText(text, "request body /task");
    },
    async runOracle(loaded, deliverableDir, options) {
      const deliverable = await resolveDeliverable(runner, deliverableDir, loaded.task, deliverableDir);
      if (options.onCase) caseListeners.set(deliverable.dir, options.onCase);
      try {
        return await runTask(runner, {
          loaded,
          deliverable,
          signal: options.signal,
          jobs: options.jobs ?? runner.config.oracle?.jobs,
          strict: runner.config.oracle?.strict,
        });
      } finally {
        caseListeners.delete(deliverable.dir);
      }
    },
    async runSolveAttempt(request, options) {
      // The hidden tests arrive in the request and stay in this process: the engine sees only solveInputs(task)
      // (runAttempt), the skill copy holds none of them, and grading runs after the engine has stopped.
      const loaded =
        request.task_text !== undefined
          ? validateTaskText(request.task_text, "request body /task")
          : validateTask(request.task, "request body /task");
      const skill = loadSkillFolder(await prepareSolveSkill(runner, loaded.task, join(options.runDir, "skill"), [request.engine.name]));
      const runsDir = join(options.runDir, "runs");
      caseListeners.set(runsDir, (verdict) => options.onCase?.(verdict));
      try {
        return await runAttempt(runner, {
          loaded,
          scored: loaded,
          skill,
          engine: request.engine,
          attempt: request.attempt,
          runsDir,
          timeoutMs: request.timeout_ms,
          caseJobs: runner.config.oracle?.jobs ?? 2,
          signal: options.signal,
          requireEngineJail,
          onEvent: options.onEvent,
        });
      } finally {
        caseListeners.delete(runsDir);
      }
    },
  };
}
