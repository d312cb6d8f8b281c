/**
 * Trigger evals: does the agent activate the skill for a query that should trigger it, and leave it alone for a
 * near miss? Each query runs `runsPerQuery` times per engine as a job with the query as its prompt and the skill
 * installed where the engine discovers it, named nowhere (`skill_install: "discoverable"`). A run counts as
 * triggered when the job's `skills_activated` (or a `skill_activated` event on the way) names the skill. A run
 * stops as soon as the skill is activated: its job is canceled through its signal (the rest of the run cannot
 * change the answer), so a triggered run usually ends `canceled`, which is expected.
 */
import { round4, wilsonInterval } from "@skillrig/stats";
import { createHash } from "node:crypto";
import type { JobRequest, Runner, SkillManifest } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import pLimit from "p-limit";
import { confusionTables } from "./confusion.js";
import { firedSkill, installDistractors, type LoadedDistractors } from "./distractors.js";
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
  /** The skill activated first (its name), null when none. */
  fired: string | null;
  /** Whose query it is: a neighbour's name with --distractors, absent for the skill under test's own. */
  owner?: string;
  job_id: string;
  status: string;
  error?: string;
}

/** The Wilson 95% interval of a trigger rate, to 4 places; null with no run. */
function wilson(triggers: number, runs: number): [number, number] | null {
  const ci = wilsonInterval(triggers, runs);
  return ci ? [round4(ci[0]), round4(ci[1])] : null;
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
  /** Neighbours installed beside the skill in every run; their should_trigger queries run too. */
  distractors?: LoadedDistractors;
  onRun?: (run: TriggerRunInfo) => void;
}

/** Whether an activated skill's name is this skill: its id or its SKILL.md name. */
export function isThisSkill(skill: Pick<SkillManifest, "id" | "name">, activated: string): boolean {
  return activated === skill.id || activated === skill.name;
}

interface QueryEntry {
  query: string;
  /** The neighbour whose query it is (its name); undefined for the skill under test's own. */
  owner?: string;
  /** Index in `queries` (the skill under test's own), for its split. */
  qi?: number;
  engine: string;
  triggers: number;
  jobs: string[];
  fired: Array<string | null>;
}

export async function runTriggers(options: RunTriggersOptions): Promise<TriggerReport> {
  const { queries, engines, distractors } = options;
  if (!Number.isInteger(options.runsPerQuery) || options.runsPerQuery < MIN_TRIGGER_RUNS) {
    throw new RangeError(`runsPerQuery must be an integer of at least ${MIN_TRIGGER_RUNS}`);
  }
  const splits = assignSplits(queries);
  const limit = pLimit(Math.max(1, options.jobs));
  const own: QueryEntry[] = queries.flatMap((q, qi) =>
    engines.map((engine) => ({ query: q.query, qi, engine, triggers: 0, jobs: [], fired: [] })),
  );
  const neighbours: QueryEntry[] = (distractors?.skills ?? []).flatMap((d) =>
    d.queries.flatMap((query) => engines.map((engine) => ({ query, owner: d.skill.name, engine, triggers: 0, jobs: [], fired: [] }))),
  );
  await Promise.all(
    [...own, ...neighbours].flatMap((entry) =>
      Array.from({ length: options.runsPerQuery }, (_, k) => limit(() => triggerRun(options, entry, k))),
    ),
  );
  const report: TriggerReport = {
    format: "skillrig-trigger-report",
    version: EVAL_FORMAT_VERSION,
    skill_name: options.skill.name,
    runs_per_query: options.runsPerQuery,
    threshold: TRIGGER_THRESHOLD,
    queries: own.map((e) => {
      const q = queries[e.qi!]!;
      const runs = e.jobs.filter((j) => j !== undefined).length;
      const rate = runs === 0 ? 0 : round(e.triggers / runs);
      return {
        query: e.query,
        should_trigger: q.should_trigger,
        split: splits[e.qi!]!,
        engine: e.engine,
        triggers: e.triggers,
        runs,
        trigger_rate: rate,
        trigger_rate_ci95: wilson(Math.min(e.triggers, runs), runs),
        passed: runs > 0 && (q.should_trigger ? rate > TRIGGER_THRESHOLD : rate <= TRIGGER_THRESHOLD),
        jobs: e.jobs.filter((j) => j !== undefined),
        fired: ranOnly(e),
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
  if (distractors) {
    const neighbourQueries = neighbours.map((e) => ({
      query: e.query,
      owner: e.owner!,
      engine: e.engine,
      runs: e.jobs.filter((j) => j !== undefined).length,
      jobs: e.jobs.filter((j) => j !== undefined),
      fired: ranOnly(e),
    }));
    report.distractors = {
      skills: distractors.skills.map((d) => ({ name: d.skill.name, path: d.skill.dir, queries: d.queries.length })),
      queries: neighbourQueries,
      confusion: confusionTables({
        skillName: options.skill.name,
        neighbours: distractors.skills.map((d) => d.skill.name),
        engines,
        own: report.queries.filter((q) => q.should_trigger),
        neighbourQueries,
      }),
    };
  }
  return report;
}

/** The `fired` of the runs that ran (a run the cancel stopped before it started has no job). */
function ranOnly(e: QueryEntry): Array<string | null> {
  return e.jobs.flatMap((j, k) => (j === undefined ? [] : [e.fired[k] ?? null]));
}

/**
 * One trigger run: a job with the query as its prompt, the skill discoverable (and the neighbours beside it). It
 * stops at the first activation that answers the question: the skill under test's, or with neighbours any
 * installed skill's (which one the agent picked is the answer).
 */
async function triggerRun(options: RunTriggersOptions, entry: QueryEntry, k: number): Promise<void> {
  const { runner, skill, distractors } = options;
  if (options.signal?.aborted) return;
  const installed = [skill, ...(distractors?.skills.map((d) => d.skill) ?? [])];
  // One controller per run: the caller's cancel is forwarded to it (no AbortSignal.any, whose sources
  // Node 20 holds weakly), and an activation aborts it.
  const stop = new AbortController();
  const forward = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", forward, { once: true });
  let seen = false;
  let answered = false;
  let first: string | null = null;
  const request: JobRequest = {
    skill_id: skill.id,
    engine: entry.engine,
    prompt: entry.query,
    options: { skill_install: "discoverable", ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}) },
  };
  const result = await runJob(runner, request, {
    skill,
    runsDir: options.runsDir,
    signal: stop.signal,
    ...(distractors ? { onPrompt: ({ work }) => installDistractors(work.run.workspace, distractors) } : {}),
    onEvent: (event) => {
      if (event.type !== "skill_activated") return;
      first ??= firedSkill(event.skill, installed);
      const mine = isThisSkill(skill, event.skill);
      if (mine) seen = true;
      if (answered || !(distractors ? installed.some((s) => isThisSkill(s, event.skill)) : mine)) return;
      answered = true;
      stop.abort(new Error("a skill was activated: the trigger run has its answer"));
    },
  }).finally(() => options.signal?.removeEventListener("abort", forward));
  // With neighbours, only the first activation counts: the run stopped there, and it is the skill the agent picked.
  const activated = result.skills_activated ?? [];
  first ??= activated[0] !== undefined ? firedSkill(activated[0], installed) : null;
  const triggered = distractors ? first === skill.name : seen || activated.some((s) => isThisSkill(skill, s));
  if (triggered) entry.triggers += 1;
  entry.jobs[k] = result.job_id;
  entry.fired[k] = first;
  options.onRun?.({
    query: entry.query,
    engine: entry.engine,
    run: k + 1,
    triggered,
    fired: first,
    ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
    job_id: result.job_id,
    status: result.status,
    ...(result.error && !answered ? { error: `${result.error.code}: ${result.error.message}` } : {}),
  });
}
