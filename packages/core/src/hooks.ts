/**
 * Every hook point, declared once, in one frozen object: reading `createHooks` tells you the whole lifecycle.
 *
 * Grading a task (packages/oracle), keyed by the task's deliverable type `T` and each field's compare mode `M`:
 *   task.setUp[T] -> task.start -> for each case: task.resolveInput[T] (all cases are checked before any runs)
 *   -> task.execute[T] -> task.compare[M] per checked field -> task.caseResult
 *   -> task.tearDown[T] -> runEnd (kind task)
 * Grading a suite (tasks times samples): each sample as above, then runEnd (kind suite). A command's reporters are
 *   made by reporter[R] for each name asked for (`--reporter R`) before anything runs.
 * Before a run, where a deliverable of type `T` is: task.resolveDeliverable[T] (a user's path), task.deliverableFile[T]
 * (the file skillrig writes a deliverable given as text to).
 * Running a skill job (packages/skills), keyed by the engine name `E`:
 *   job.resolveInput -> job.renderPrompt -> job.prepareRuntime -> job.execute[E] (streams job.event)
 *   -> job.collectArtifacts -> runEnd
 *
 * Grading an eval run (packages/evals), keyed by each assertion's kind `K`: evals.json is checked against
 *   assertion[K]'s schema when it is loaded, then each assertion is graded by assertion[K]'s `grade`.
 *
 * Dispatch is by name: a plugin taps `task.execute.for("function")` or `job.execute.for("gemini")` and that tap is
 * its claim (the runner refuses a second plugin on the same name). Nothing receives work that is not its own, so no
 * tap checks a type or narrows a union.
 */
import { createRequire } from "node:module";
import type * as Tapable from "tapable";
import type {
  ArtifactCollection,
  CaseExecuteRequest,
  CaseInputResolution,
  CaseOutcome,
  CaseWork,
  CompareRequest,
  DeliverableFileRequest,
  DeliverablePathRequest,
  CompareResult,
  JobExecuteRequest,
  JobInputResolution,
  JobRuntime,
  JobWork,
  PromptRendering,
  RunEndInfo,
  TaskRun,
} from "./flow-types.js";
import type { CaseVerdict, Deliverable, TaskReport } from "./oracle-types.js";
import type { EngineEvent, EngineOutcome } from "./job-types.js";
import type { AssertionKind } from "./assertion-types.js";
import type { Sandbox, SandboxRequest } from "./sandbox.js";
import type { SkillrigPlugin } from "./plugin.js";
import type { ReporterRequest } from "./reporters.js";

const require = createRequire(import.meta.url);

// The six hook classes the runner uses, each required from its own file in tapable's lib/ (it has no exports map):
// its index requires all twelve, which every command paid for at start-up.
const AsyncSeriesBailHook = require("tapable/lib/AsyncSeriesBailHook.js") as typeof Tapable.AsyncSeriesBailHook;
const AsyncSeriesHook = require("tapable/lib/AsyncSeriesHook.js") as typeof Tapable.AsyncSeriesHook;
const AsyncSeriesWaterfallHook = require("tapable/lib/AsyncSeriesWaterfallHook.js") as typeof Tapable.AsyncSeriesWaterfallHook;
const HookMap = require("tapable/lib/HookMap.js") as typeof Tapable.HookMap;
const SyncBailHook = require("tapable/lib/SyncBailHook.js") as typeof Tapable.SyncBailHook;
const SyncHook = require("tapable/lib/SyncHook.js") as typeof Tapable.SyncHook;

/**
 * Which keyed hook a claim came from: tapping `task.execute`, `job.execute`, `task.compare` or `assertion` for a
 * name claims it.
 */
export type ClaimKind = "deliverable" | "engine" | "compare" | "reporter" | "assertion";

/** Called when a plugin taps a claiming hook for `key`; throws on a conflict. */
export type OnClaim = (kind: ClaimKind, key: string, plugin: string) => void;

// biome-ignore lint/suspicious/noExplicitAny: any hook's arguments and result; only its taps' names are read.
function claiming<H extends Tapable.Hook<any, any>>(kind: ClaimKind, onClaim: OnClaim, make: () => H): Tapable.HookMap<H> {
  return new HookMap<H>((key: string) => {
    const hook = make();
    hook.intercept({
      register: (tap) => {
        onClaim(kind, key, tap.name);
        return tap;
      },
    });
    return hook;
  });
}

export function createHooks(onClaim: OnClaim) {
  return Object.freeze({
    /** Grading: one task run against one deliverable. */
    task: Object.freeze({
      /**
       * Keyed by deliverable type. Before the run's cases: set up per-run state (snapshot the deliverable, start a
       * harness). `tearDown` of the same type always follows, even when a setUp tap threw.
       */
      setUp: new HookMap((_type: string) => new AsyncSeriesHook<[TaskRun]>(["run"])),
      /** Observers: a task run starts (after setUp). Reporters. */
      start: new AsyncSeriesHook<[TaskRun]>(["run"]),
      /**
       * Keyed by deliverable type. Waterfall: each tap refines a case's input and adds violations (Input Contract
       * checks); nothing runs until every case was resolved.
       */
      resolveInput: new HookMap((_type: string) => new AsyncSeriesWaterfallHook<[CaseInputResolution, CaseWork]>(["resolution", "work"])),
      /** Keyed by deliverable type; tapping claims the type. Runs one case and says what it produced. */
      execute: claiming("deliverable", onClaim, () => new AsyncSeriesBailHook<[CaseExecuteRequest], CaseOutcome | undefined>(["request"])),
      /** Keyed by compare mode; tapping claims the mode. Compares one field of one case. */
      compare: claiming("compare", onClaim, () => new SyncBailHook<[CompareRequest], CompareResult | undefined>(["request"])),
      /** Observers: one case has its verdict (live progress, the jobs server's case events). */
      caseResult: new AsyncSeriesHook<[CaseVerdict, CaseWork]>(["verdict", "work"]),
      /** Keyed by deliverable type. The run finished (always, even on error): tear down what setUp made. */
      tearDown: new HookMap((_type: string) => new AsyncSeriesHook<[TaskRun, TaskReport]>(["run", "report"])),
      /**
       * Keyed by deliverable type. Bail, before any run: the `Deliverable` a user's path names (a `--deliverable`
       * file or folder). No answer: the file itself, or a folder holding the task's `entrypoint` (the oracle's rule).
       */
      resolveDeliverable: new HookMap(
        (_type: string) => new AsyncSeriesBailHook<[DeliverablePathRequest], Deliverable | undefined>(["request"]),
      ),
      /**
       * Keyed by deliverable type. Bail: the entry file, relative to its folder, of a deliverable skillrig writes from
       * text (a sample's `solution`, the solve skill's output). No answer: the task's `entrypoint`.
       */
      deliverableFile: new HookMap((_type: string) => new SyncBailHook<[DeliverableFileRequest], string | undefined>(["request"])),
    }),

    /** Skill jobs: one skill run by one engine. */
    job: Object.freeze({
      /** Waterfall: resolve file and inline inputs, fill parameter defaults, validate against the skill's schemas. */
      resolveInput: new AsyncSeriesWaterfallHook<[JobInputResolution, JobWork]>(["resolution", "work"]),
      /** Waterfall: the prompt text (default template, engine-specific template, patches). */
      renderPrompt: new AsyncSeriesWaterfallHook<[PromptRendering, JobWork]>(["prompt", "work"]),
      /**
       * Waterfall: what the engine's process needs beyond the run folder (a skill's Python environment: PATH,
       * VIRTUAL_ENV, a folder the jail lets it read). Not called for a dry run.
       */
      prepareRuntime: new AsyncSeriesWaterfallHook<[JobRuntime, JobWork]>(["runtime", "work"]),
      /** Keyed by engine name; tapping claims the engine. Runs the engine (its events go through `work.emit`). */
      execute: claiming("engine", onClaim, () => new AsyncSeriesBailHook<[JobExecuteRequest], EngineOutcome | undefined>(["request"])),
      /** Observers: an engine event as it streams (messages, tool calls, file changes, usage). */
      event: new SyncHook<[EngineEvent, JobWork]>(["event", "work"]),
      /** Waterfall: locate artifacts after the engine ran and validate the output. */
      collectArtifacts: new AsyncSeriesWaterfallHook<[ArtifactCollection, JobWork]>(["collection", "work"]),
    }),

    /**
     * Keyed by assertion kind (evals.json's `kind`); tapping claims the kind. Bail: the tap returns the kind's
     * `AssertionKind` (its fields' schema, where it runs, how it grades). A declaration, not a call per assertion:
     * evals asks once per kind, to check evals.json before anything runs and then to grade.
     */
    assertion: claiming("assertion", onClaim, () => new SyncBailHook<[], AssertionKind | undefined>([])),

    /**
     * Keyed by reporter name (`--reporter <name>`); tapping claims the name. Bail: called only when a command is
     * asked for the reporter, the tap returns the observer to apply (a plugin tapping `task.caseResult`, `runEnd`).
     * `applyReporters` (reporters.ts) makes the call.
     */
    reporter: claiming("reporter", onClaim, () => new SyncBailHook<[ReporterRequest], SkillrigPlugin | undefined>(["request"])),

    /** Observers: a task run, suite, job or solve batch ended. Reporters write their files here. */
    runEnd: new AsyncSeriesHook<[RunEndInfo]>(["run"]),
    /** Bail: the first tap returns the Sandbox for a purpose. The default sandbox taps last. */
    sandbox: new SyncBailHook<[SandboxRequest], Sandbox | undefined>(["request"]),
    /** The runner is done (`runner.close()`): stop what lives across runs (warm harnesses, pools). */
    close: new AsyncSeriesHook<[]>([]),
  });
}

export type RunnerHooks = ReturnType<typeof createHooks>;
