/**
 * The `function` deliverable plugin: a Python module whose function `entrypoint` is called as `fn(*input)`.
 * Written on @skillrig/deliverable-kit (which snapshots the deliverable and keeps each run's session) and on the
 * sandbox's sample host (`Sandbox.openSample`), which loads the module once and runs each case in a fork of it:
 *
 *   resolveDeliverable / deliverableFile   a .py file or a folder of one module; `solution.py` (deliverable-path.ts)
 *   open       open the sample (`{ kind: "function" }`) and wait for its import and signature
 *   checkCase  Input Contract v1.0: input is the args list, and its length fits the real signature
 *   runCase    send the case's args; map the reply (data about what the call did) to a CaseOutcome
 *              (case-outcome.ts); the host never decides a status
 *   close      close the sample (the kit then removes the temp folder)
 */
import { createRequire } from "node:module";
import { type DeliverablePlugin, defineDeliverable, type OpenContext } from "@skillrig/deliverable-kit";
import {
  SkillrigError,
  formatViolations,
  resolveCaseLimits,
  type CaseOutcome,
  type CaseWork,
  fromPrecompiled,
  type CompiledSchema,
  type OpenSample,
  type ResourceLimits,
  type Runner,
  type SampleLoad,
  type SkillrigPlugin,
  type TaskRun,
} from "@skillrig/core";
import { checkArgs } from "./check-args.js";
// Compiled from options.schema.json when this package was built (scripts/precompile-schema.mjs): no ajv at start-up.
import * as precompiledOptions from "./options.schema.validate.js";
import { outcomeOf } from "./case-outcome.js";
import { functionDeliverable, SOLUTION_FILE } from "./deliverable-path.js";
// Types only: the sections this plugin reads (`oracle.timeout_ms`, `sandbox.limits`) join SkillrigConfig by
// declaration merging; both packages are devDependencies, and nothing of them is loaded at run time.
import type {} from "@skillrig/oracle/config-section";
import type {} from "@skillrig/sandbox/config-section";

export const PLUGIN_NAME = "@skillrig/deliverable-function";

export interface DeliverableFunctionOptions {
  /** Python interpreter for the harness. Default "python3" (the sandbox resolves it to the user's real one). */
  python?: string;
  /** How long importing the deliverable may take. Default 30 000 ms. */
  loadTimeoutMs?: number;
  /** Harness restarts allowed per task run after a harness crash. Default 3. */
  maxRestarts?: number;
  /** How long past a case's wall limit the harness may stay silent before it counts as stuck and is stopped. Default 5000 ms. */
  stuckGraceMs?: number;
  /**
   * Share the sandbox's sample host with other samples (a fork per sample instead of a sandbox and an interpreter
   * per task run) where the sandbox can keep samples apart by uid (`Sandbox.sampleUids`: root at level namespaces).
   * false: every task run gets a sandboxed host of its own. Default true.
   */
  shareHost?: boolean;
  /** The former name of `shareHost`, still read (`shareHost` wins when both are given). */
  warm?: boolean;
}

const OPTIONS_SCHEMA: Record<string, unknown> = createRequire(import.meta.url)("./options.schema.json");
let optionsValidator: CompiledSchema<DeliverableFunctionOptions> | undefined;

/** The options' violations, by the validator compiled from options.schema.json when this package was built. */
function optionsViolations(options: unknown) {
  optionsValidator ??= fromPrecompiled<DeliverableFunctionOptions>(precompiledOptions, { schema: OPTIONS_SCHEMA });
  return optionsValidator.validate(options);
}

/** Time the harness needs beyond the cases themselves (start-up, import, teardown). */
const HARNESS_OVERHEAD_MS = 60_000;
/** Cases handed to the sample host at once (`TaskRun.casesInFlight`); it runs `jobs` of them at a time. */
const CASES_IN_FLIGHT = 256;

/** A task run's session (deliverable-kit keeps it per run): its sample in the sample host. */
export interface FunctionRunState {
  sample: OpenSample;
}

export class DeliverableFunctionPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;
  readonly #options: DeliverableFunctionOptions;
  #kit: DeliverablePlugin<FunctionRunState> | undefined;

  constructor(options: DeliverableFunctionOptions = {}) {
    const violations = optionsViolations(options);
    if (violations.length > 0) {
      throw new SkillrigError("invalid_config", `options of plugin "${PLUGIN_NAME}" are invalid: ${formatViolations(violations)}`, {
        field: "plugins",
        violations,
      });
    }
    this.#options = options;
  }

  /** A run's session (its sample), for tests and diagnostics. */
  sessionOf(run: TaskRun): FunctionRunState | undefined {
    return this.#kit?.sessionOf(run);
  }

  apply(runner: Runner): void {
    this.#kit = defineDeliverable<FunctionRunState, unknown>({
      name: this.name,
      type: "function",
      description: "a Python function: fn(*input) per case, in a fork of the sample loaded once in the sandbox's sample host",
      deliverableFile: () => SOLUTION_FILE,
      resolveDeliverable: functionDeliverable,
      open: (context) => this.#open(runner, context),
      checkCase: ({ session, testCase, work }) => {
        const load = session.sample.load;
        const signature = load.ok ? (load.signature ?? undefined) : undefined;
        const violations = checkArgs(testCase.input, work.index, signature);
        // Said out loud rather than skipped in silence: without a signature only the list rule could be checked.
        const unknown = load.ok && !load.signature ? load.signatureError : undefined;
        return { violations, ...(unknown ? { warnings: [`the number of args was not checked: ${unknown}`] } : {}) };
      },
      runCase: (session, work, input) => this.#runCase(runner, session, work, input),
      close: (session) => session.sample.close(),
    });
    this.#kit.apply(runner);
  }

  async #open(runner: Runner, { run, workspace }: OpenContext): Promise<FunctionRunState> {
    const openSample = run.sandbox.openSample?.bind(run.sandbox);
    if (!openSample) {
      throw new SkillrigError(
        "sandbox_unavailable",
        `the sandbox "${run.sandbox.name}" has no sample host (openSample), which the function deliverable type needs to run a Python function`,
        { field: "sandbox" },
      );
    }
    const spares = Math.min(Math.max(run.jobs, 1), 8);
    const sample = await openSample({
      program: { kind: "function", entryFile: workspace.entryFile, functionName: run.loaded.task.entrypoint },
      snapshotDir: workspace.snapshotDir,
      concurrency: spares,
      cases: run.loaded.task.tests.length,
      limits: harnessLimits(runner, run, spares),
      signal: run.signal,
      ...(this.#options.python !== undefined ? { python: this.#options.python } : {}),
      ...(this.#options.loadTimeoutMs !== undefined ? { loadTimeoutMs: this.#options.loadTimeoutMs } : {}),
      ...(this.#options.maxRestarts !== undefined ? { maxRestarts: this.#options.maxRestarts } : {}),
      ...(this.#options.stuckGraceMs !== undefined ? { stuckGraceMs: this.#options.stuckGraceMs } : {}),
      ...((this.#options.shareHost ?? this.#options.warm) === false ? { shareHost: false } : {}),
    });
    // The sample host queues the cases and runs `spares` at a time: a sample's cases go in as one batch. Bounded, so
    // a task of thousands of cases holds only so many requests and replies at once.
    run.casesInFlight = CASES_IN_FLIGHT;
    return { sample };
  }

  async #runCase(runner: Runner, state: FunctionRunState, work: CaseWork, input: unknown): Promise<CaseOutcome> {
    const load = state.sample.load;
    if (!load.ok) return loadFailure(load);
    const limits = resolveCaseLimits(work.run.loaded.task, work.testCase, {
      timeout_ms: runner.config.oracle?.timeout_ms,
      limits: runner.config.sandbox?.limits,
    });
    // The task file's own text of the input (numbers exactly as written) when nothing changed the input on its way.
    const exact = work.run.loaded.caseJson?.[work.index];
    const argsJson = exact && input === work.testCase.input ? exact.input : JSON.stringify(input);
    const reply = await state.sample.run({ limits, argsJson });
    const outcome = outcomeOf(reply, limits, work, state.sample.isolation, exact?.expected);
    return reply.queuedMs !== undefined ? { ...outcome, queuedMs: reply.queuedMs } : outcome;
  }
}

/** The harness as a whole: its time bounds all the cases it may run, and its process count covers `jobs` cases at once. */
function harnessLimits(runner: Runner, run: TaskRun, spares: number): ResourceLimits {
  const config = { timeout_ms: runner.config.oracle?.timeout_ms, limits: runner.config.sandbox?.limits };
  const task = run.loaded.task;
  const perCase = resolveCaseLimits(task, undefined, config);
  const wallTotal = task.tests.reduce((sum, testCase) => sum + resolveCaseLimits(task, testCase, config).wallMs, 0);
  const wallMs = HARNESS_OVERHEAD_MS + wallTotal;
  return {
    wallMs,
    // The parent's own CPU time grows with every case it forks and answers; each child gets the case's CPU limit.
    cpuMs: wallMs,
    memoryBytes: perCase.memoryBytes,
    maxProcesses: perCase.maxProcesses * run.jobs + run.jobs + spares + 2,
    fileSizeBytes: perCase.fileSizeBytes,
    // The harness's working folder holds `jobs` cases at once, each within its own cap (the harness counts each);
    // this is the sandbox's own cap on the whole, which holds even if the harness is subverted.
    diskBytes: perCase.diskBytes * Math.max(1, run.jobs),
    // outputBytes is left out on purpose: the harness's stdout is the protocol; it caps each case's prints itself.
  };
}

function loadFailure(error: Extract<SampleLoad, { ok: false }>): CaseOutcome {
  const details: Record<string, unknown> = { load_error: error.kind };
  if (error.traceback) details.traceback = error.traceback;
  if (error.stdout) details.import_stdout = error.stdout;
  if (error.stderr) details.import_stderr = error.stderr;
  return {
    actual: null,
    status: "error",
    message: `the deliverable could not be loaded: ${error.message}`,
    comparisons: [],
    details,
  };
}
