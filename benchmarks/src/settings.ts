/** How big and how often: the full run and the --quick smoke check differ only here. */
import type { PythonInfo } from "./python.js";

export interface BenchSettings {
  quick: boolean;
  /** Repeats per figure; every headline figure is the median of these. */
  repeats: number;
  /** Trivial function case counts (the issue asks for 1,000 and 10,000). */
  trivialCaseCounts: number[];
  /** Cases of the function that does real work. */
  workCases: number;
  /** Cases the fresh-process baseline runs; its per-case cost is extrapolated to the full counts. */
  baselineSample: number;
  /** Cases per script/cli run; the per-case cost is the slope between a 1-case and this many-case run. */
  processCases: number;
  /** Skill jobs timed (after warm-up ones that are not counted). */
  jobs: number;
  jobWarmup: number;
  /** Time one skillrig figure may take across its rounds; past it the figure keeps the rounds it has (at least one). */
  figureBudgetMs: number;
  /** Tasks of the generated HumanEval-shaped suite (the issue asks for ~150; --suite-tasks overrides). */
  suiteTasks: number;
  /** Temporary folder holding every generated task, deliverable and config. */
  workDir: string;
  python: PythonInfo;
  /** Progress lines go to stderr, so stdout keeps only the table. */
  log(message: string): void;
}

export function sizes(
  quick: boolean,
): Pick<
  BenchSettings,
  "repeats" | "trivialCaseCounts" | "workCases" | "baselineSample" | "processCases" | "jobs" | "jobWarmup" | "figureBudgetMs" | "suiteTasks"
> {
  return quick
    ? {
        repeats: 1,
        trivialCaseCounts: [1_000],
        workCases: 50,
        baselineSample: 30,
        processCases: 15,
        jobs: 10,
        jobWarmup: 2,
        figureBudgetMs: 30_000,
        suiteTasks: 30,
      }
    : {
        repeats: 3,
        trivialCaseCounts: [1_000, 10_000],
        workCases: 200,
        baselineSample: 200,
        processCases: 40,
        jobs: 60,
        jobWarmup: 5,
        figureBudgetMs: 150_000,
        suiteTasks: 150,
      };
}
