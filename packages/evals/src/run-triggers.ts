/**
 * Trigger evals: does the agent activate the skill for a query that should trigger it, and leave it alone for a
 * near miss? Each query runs `runsPerQuery` times per engine as a job with the query as its prompt and the skill
 * installed where the engine discovers it, named nowhere (`skill_install: "discoverable"`). A run counts as
 * triggered when the job's `skills_activated` (or a `skill_activated` event on the way) names the skill. A run
 * stops as soon as the skill is activated: its job is canceled through its signal (the rest of the run cannot
 * change the answer), so a triggered run usually ends `canceled`, which is expected.
 */
import { createHash } from "node:crypto";
import type { JobRequest, Runner, SkillManifest } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import pLimit from "p-limit";
import { EVAL_FORMAT_VERSION, type TriggerQuery, type TriggerReport } from "./format.js";
import { round } from "./stats.js";

export const MIN_TRIGGER_RUNS = 3;
export const DEFAULT_TRIGGER_RUNS = 3;
/** A query passes when its trigger rate is above this (should_trigger), or not above it (should not). */
export const TRIGGER_THRESHOLD = 0.5;
/** The share of each label that goes to train when a query has no split of its own. */
export const TRAIN_SHARE = 0.6;

/**
 * The split of each query: its own `split` when given, else a fixed stratified one: the queries of each label
 * (should_trigger true / false) without a split of their own, sorted by the SHA-256 of their text, the first
 * round(60%) train and the rest validation. It depends only on the queries, so it stays the same from one
 * iteration to the next while they do.
 */
export function assignSplits(queries: TriggerQuery[]): Array<"train" | "validation"> {
  const out: Array<"train" | "validation"> = queries.map((q) => q.split ?? "train");
  for (const label of [true, false]) {
    const group = queries
      .map((q, i) => ({ q, i, hash: createHash("sha256").update(q.query).digest("hex") }))
      .filter(({ q }) => q.should_trigger === label && q.split === undefined)
      .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    const train = Math.round(group.length * TRAIN_SHARE);
    group.forEach(({ i }, k) => {
      out[i] = k < train ? "train" : "validation";
    });
  }
  return out;
}

export interface TriggerRunInfo {
  query: string;
  engine: string;
  run: number;
  triggered: boolean;
  job_id: string;
  status: string;
  error?: string;
}

export interface RunTriggersOptions {
  runner: Runner;
  skill: SkillManifest;
  queries: TriggerQuery[];
  engines: string[];
  runsPerQuery: number;
  /** Where the trigger jobs' run folders go. */
  runsDir: string;
  jobs: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  onRun?: (run: TriggerRunInfo) => void;
}

/** Whether an activated skill's name is this skill: its id or its SKILL.md name. */
export function isThisSkill(skill: Pick<SkillManifest, "id" | "name">, activated: string): boolean {
  return activated === skill.id || activated === skill.name;
}

export async function runTriggers(options: RunTriggersOptions): Promise<TriggerReport> {
  const { runner, skill, queries, engines } = options;
  if (!Number.isInteger(options.runsPerQuery) || options.runsPerQuery < MIN_TRIGGER_RUNS) {
    throw new RangeError(`runsPerQuery must be an integer of at least ${MIN_TRIGGER_RUNS}`);
  }
  const splits = assignSplits(queries);
  const limit = pLimit(Math.max(1, options.jobs));
  const entries = queries.flatMap((q, qi) => engines.map((engine) => ({ q, qi, engine, triggers: 0, jobs: [] as string[] })));
  await Promise.all(
    entries.flatMap((entry) =>
      Array.from({ length: options.runsPerQuery }, (_, k) =>
        limit(async () => {
          if (options.signal?.aborted) return;
          // One controller per run: the caller's cancel is forwarded to it (no AbortSignal.any, whose sources
          // Node 20 holds weakly), and an activation aborts it.
          const stop = new AbortController();
          const forward = () => stop.abort(options.signal?.reason);
          options.signal?.addEventListener("abort", forward, { once: true });
          let seen = false;
          const request: JobRequest = {
            skill_id: skill.id,
            engine: entry.engine,
            prompt: entry.q.query,
            options: { skill_install: "discoverable", ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}) },
          };
          const result = await runJob(runner, request, {
            skill,
            runsDir: options.runsDir,
            signal: stop.signal,
            onEvent: (event) => {
              if (event.type === "skill_activated" && isThisSkill(skill, event.skill) && !seen) {
                seen = true;
                stop.abort(new Error("the skill was activated: the trigger run has its answer"));
              }
            },
          }).finally(() => options.signal?.removeEventListener("abort", forward));
          const triggered = seen || (result.skills_activated ?? []).some((s) => isThisSkill(skill, s));
          if (triggered) entry.triggers += 1;
          entry.jobs[k] = result.job_id;
          options.onRun?.({
            query: entry.q.query,
            engine: entry.engine,
            run: k + 1,
            triggered,
            job_id: result.job_id,
            status: result.status,
            ...(result.error && !seen ? { error: `${result.error.code}: ${result.error.message}` } : {}),
          });
        }),
      ),
    ),
  );
  const report: TriggerReport = {
    format: "skillrig-trigger-report",
    version: EVAL_FORMAT_VERSION,
    skill_name: skill.name,
    runs_per_query: options.runsPerQuery,
    threshold: TRIGGER_THRESHOLD,
    queries: entries.map((e) => {
      const runs = e.jobs.filter((j) => j !== undefined).length;
      const rate = runs === 0 ? 0 : round(e.triggers / runs);
      return {
        query: e.q.query,
        should_trigger: e.q.should_trigger,
        split: splits[e.qi]!,
        engine: e.engine,
        triggers: e.triggers,
        runs,
        trigger_rate: rate,
        passed: runs > 0 && (e.q.should_trigger ? rate > TRIGGER_THRESHOLD : rate <= TRIGGER_THRESHOLD),
        jobs: e.jobs.filter((j) => j !== undefined),
      };
    }),
    summary: {},
  };
  for (const engine of engines) {
    const mine = report.queries.filter((q) => q.engine === engine);
    const count = (split: "train" | "validation") => ({
      passed: mine.filter((q) => q.split === split && q.passed).length,
      total: mine.filter((q) => q.split === split).length,
    });
    report.summary[engine] = { train: count("train"), validation: count("validation") };
  }
  return report;
}
