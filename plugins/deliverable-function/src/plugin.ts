/**
 * The `function` deliverable plugin: a Python module whose function `entrypoint` is called as `fn(*input)`.
 * Written on @skillrig/deliverable-kit, which snapshots the deliverable and keeps each run's session:
 *
 *   open          open a pair in the warm runtime (warm-runtime-pool.ts) where the sandbox can keep samples apart
 *                 by uid, else start ONE harness through the sandbox over the snapshot; wait for its import and
 *                 signature
 *   checkCase     Input Contract v1.0: input is the args list, and its length fits the real signature
 *   runCase       send the case to the harness (which forks a child per case); the runner maps its reply (data
 *                 about what the call did) to a CaseOutcome (case-outcome.ts); the harness never decides a status
 *   close         stop the harness and its whole tree, close the pair (the kit then removes the temp folder)
 *   closeRuntime  stop the warm runtime (runner.close())
 */
import { copyFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DeliverablePlugin, type DeliverableWorkspace, defineDeliverable, type OpenContext } from "@skillrig/deliverable-kit";
import {
  SkillrigError,
  isSkillrigError,
  formatViolations,
  DISK_ENTRY_LIMIT,
  resolveCaseLimits,
  type CaseOutcome,
  type CaseWork,
  fromPrecompiled,
  type CompiledSchema,
  type ResourceLimits,
  type Runner,
  type SkillrigPlugin,
  type TaskRun,
} from "@skillrig/core";
import { checkArgs } from "./check-args.js";
// Compiled from options.schema.json when this package was built (scripts/precompile-schema.mjs): no ajv at start-up.
import * as precompiledOptions from "./options.schema.validate.js";
import { outcomeOf } from "./case-outcome.js";
import { CaseOverranError, FunctionHarness, HarnessDiedError, type HarnessLoad, type HarnessStartOptions } from "./harness-client.js";
import { sampleUidsOf } from "./warm-runtime.js";
import { WarmRuntimePool } from "./warm-runtime-pool.js";
import type { CaseReply, CaseRequest, FunctionSignature, LoadErrorMessage } from "./harness-protocol.js";
// Types only: the sections this plugin reads (`oracle.timeout_ms`, `sandbox.limits`) join SkillrigConfig by
// declaration merging; both packages are devDependencies, and nothing of them is loaded at run time.
import type {} from "@skillrig/oracle/config-section";
import type {} from "@skillrig/sandbox/config-section";

export const PLUGIN_NAME = "@skillrig/deliverable-function";

/** The harness shipped next to the compiled code (copy-assets puts it in dist). */
const HARNESS_FILE = join(dirname(fileURLToPath(import.meta.url)), "function_harness.py");
const RUNTIME_FILE = join(dirname(fileURLToPath(import.meta.url)), "warm_runtime.py");

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
   * Serve task runs from one warm runtime kept for the runner's life (a fork per sample instead of a sandbox and
   * an interpreter per task run) where the sandbox can keep samples apart by uid: root at level namespaces.
   * Elsewhere, or false, every task run gets a sandboxed harness of its own. Default true.
   */
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

/** A task run's session (deliverable-kit keeps it per run). */
export interface FunctionRunState {
  /** "warm": a pair of the warm runtime; "own": a sandboxed harness of its own (also after the runtime was lost). */
  where: "warm" | "own";
  /** The kit's folder for this run: the snapshot, and the harness's files when it gets a harness of its own. */
  workspace: DeliverableWorkspace;
  /** Removes what the run made beyond the kit's folder (its pair's space and uid), in order. */
  cleanups: Array<() => Promise<void>>;
  harness: FunctionHarness;
  load: HarnessLoad;
  /** The function's signature; undefined when the import failed or inspect could not read it. */
  signature: FunctionSignature | undefined;
  restarts: number;
  /** A restart in progress, shared by the cases that found the harness dead. */
  restarting?: Promise<void>;
  startHarness(): Promise<{ harness: FunctionHarness; load: HarnessLoad }>;
  /** Moves the run to a harness of its own after the warm runtime was lost (once, shared by the cases in flight). */
  leavingRuntime?: Promise<void>;
}

export class DeliverableFunctionPlugin implements SkillrigPlugin {
  readonly name = PLUGIN_NAME;
  readonly #python: string;
  readonly #loadTimeoutMs: number;
  readonly #maxRestarts: number;
  readonly #stuckGraceMs: number;
  readonly #warm: boolean;
  #pool: WarmRuntimePool | undefined;
  /** The warm runtime could not start on this machine: every run gets a harness of its own. */
  #warmBroken = false;

  constructor(options: DeliverableFunctionOptions = {}) {
    const violations = optionsViolations(options);
    if (violations.length > 0) {
      throw new SkillrigError("invalid_config", `options of plugin "${PLUGIN_NAME}" are invalid: ${formatViolations(violations)}`, {
        field: "plugins",
        violations,
      });
    }
    this.#python = options.python ?? "python3";
    this.#loadTimeoutMs = options.loadTimeoutMs ?? 30_000;
    this.#maxRestarts = options.maxRestarts ?? 3;
    this.#stuckGraceMs = options.stuckGraceMs ?? 5000;
    this.#warm = options.warm ?? true;
  }

  /** A run's session (its harness, signature, restarts), for tests and diagnostics. */
  sessionOf(run: TaskRun): FunctionRunState | undefined {
    return this.#kit?.sessionOf(run);
  }

  #kit: DeliverablePlugin<FunctionRunState> | undefined;

  apply(runner: Runner): void {
    this.#kit = defineDeliverable<FunctionRunState, unknown>({
      name: this.name,
      type: "function",
      description: "a Python function: fn(*input) per case, in a fork of one long-lived harness",
      open: (context) => this.#startTask(context),
      checkCase: ({ session, testCase, work }) => {
        const violations = checkArgs(testCase.input, work.index, session.signature);
        // Said out loud rather than skipped in silence: without a signature only the list rule could be checked.
        const unknown = session.load.ok && !session.signature ? session.load.ready.signature_error : undefined;
        return { violations, ...(unknown ? { warnings: [`the number of args was not checked: ${unknown}`] } : {}) };
      },
      runCase: (session, work, input) => this.#runCase(runner, session, work, input),
      close: async (session) => {
        await session.leavingRuntime?.catch(() => undefined);
        await session.restarting?.catch(() => undefined);
        await session.harness.stop();
        for (const cleanup of session.cleanups.reverse()) await cleanup();
      },
      closeRuntime: async () => {
        const pool = this.#pool;
        this.#pool = undefined;
        await pool?.close();
      },
    });
    this.#kit.apply(runner);
  }

  #poolFor(runner: Runner): WarmRuntimePool {
    this.#pool ??= new WarmRuntimePool({
      python: this.#python,
      harnessFile: HARNESS_FILE,
      runtimeFile: RUNTIME_FILE,
      fileSizeBytes: resolveCaseLimits({}, undefined, { limits: runner.config.sandbox?.limits }).fileSizeBytes,
      diskBytes: resolveCaseLimits({}, undefined, { limits: runner.config.sandbox?.limits }).diskBytes,
    });
    return this.#pool;
  }

  #harnessOptions(run: TaskRun, limits: ResourceLimits, spares: number) {
    return {
      sandbox: run.sandbox,
      python: this.#python,
      functionName: run.loaded.task.entrypoint,
      spares,
      cases: run.loaded.task.tests.length,
      limits,
      loadTimeoutMs: this.#loadTimeoutMs,
      stuckGraceMs: this.#stuckGraceMs,
      signal: run.signal,
    };
  }

  /** The warm runtime's pair for this run, or undefined when it cannot serve it (the run then gets a harness of its own). */
  async #startWarm(
    runner: Runner,
    run: TaskRun,
    workspace: DeliverableWorkspace,
    limits: ResourceLimits,
    spares: number,
  ): Promise<FunctionRunState | undefined> {
    const support = this.#warm && !this.#warmBroken ? sampleUidsOf(run.sandbox) : undefined;
    if (!support) return undefined;
    const pool = this.#poolFor(runner);
    if (!pool.fits(limits)) return undefined;
    let pair: Awaited<ReturnType<WarmRuntimePool["openPair"]>>;
    try {
      pair = await pool.openPair({
        sandbox: run.sandbox,
        support,
        // The kit's snapshot (already cut to what may cross into the sandbox), copied into the pair's own space.
        deliverable: { dir: workspace.snapshotDir, entryFile: workspace.entryFile },
        functionName: run.loaded.task.entrypoint,
        spares,
        limits,
      });
    } catch (error) {
      // A runtime that cannot start here (an old setpriv without ambient capabilities, say) is not the sample's
      // fault: this runner stops trying, and every run gets a sandboxed harness of its own (the stricter path).
      if (isSkillrigError(error)) throw error;
      this.#warmBroken = true;
      return undefined;
    }
    if (!pair) return undefined;
    const open = pair;
    // Canceled (Ctrl-C, a canceled job): the pair's whole tree goes, as a sandbox of its own would. One listener
    // per pair, on the current process, removed when the pair closes: the signal is often the whole suite's.
    let current: ReturnType<typeof open.process> | undefined;
    const onAbort = () => current?.kill();
    run.signal.addEventListener("abort", onAbort, { once: true });
    const closePair = () => {
      run.signal.removeEventListener("abort", onAbort);
      return open.close();
    };
    const startHarness = () => {
      const pairProcess = open.process();
      current = pairProcess;
      if (run.signal.aborted) pairProcess.kill();
      return FunctionHarness.start({
        ...this.#harnessOptions(run, limits, spares),
        process: pairProcess,
        harnessFile: "function_harness.py",
        entryFile: open.entryFile,
        workDir: "",
        readOnlyPaths: [],
      });
    };
    try {
      const { harness, load } = await startHarness();
      if (harness.runtimeLost) {
        await closePair();
        return undefined;
      }
      return {
        where: "warm",
        workspace,
        cleanups: [closePair],
        harness,
        load,
        signature: load.ok ? (load.ready.signature ?? undefined) : undefined,
        restarts: 0,
        startHarness,
      };
    } catch (error) {
      await closePair();
      throw error;
    }
  }

  async #startTask({ runner, run, workspace }: OpenContext): Promise<FunctionRunState> {
    const spares = sparesFor(run);
    const limits = harnessLimits(runner, run, spares);
    return (await this.#startWarm(runner, run, workspace, limits, spares)) ?? this.#startOwn(run, workspace, limits, spares);
  }

  /** A sandboxed harness of this run's own: where the runtime is not used, and where a run goes when it was lost. */
  async #startOwn(run: TaskRun, workspace: DeliverableWorkspace, limits: ResourceLimits, spares: number): Promise<FunctionRunState> {
    const { root, entryFile } = workspace;
    const harnessFile = join(root, "harness", "function_harness.py");
    await mkdir(dirname(harnessFile), { recursive: true });
    await copyFile(HARNESS_FILE, harnessFile);
    const workDir = join(root, "work");
    await mkdir(workDir, { recursive: true });
    const startHarness = () =>
      FunctionHarness.start({
        ...this.#harnessOptions(run, limits, spares),
        harnessFile,
        entryFile,
        workDir,
        // The whole run folder: the sandbox then need not create any parent folder of its own.
        readOnlyPaths: [root],
      } satisfies HarnessStartOptions);
    const { harness, load } = await startHarness();
    return {
      where: "own",
      workspace,
      cleanups: [],
      harness,
      load,
      signature: load.ok ? (load.ready.signature ?? undefined) : undefined,
      restarts: 0,
      startHarness,
    };
  }

  async #runCase(runner: Runner, state: FunctionRunState, work: CaseWork, input: unknown): Promise<CaseOutcome> {
    if (!state.load.ok) return loadFailure(state.load.error);
    const limits = resolveCaseLimits(work.run.loaded.task, work.testCase, {
      timeout_ms: runner.config.oracle?.timeout_ms,
      limits: runner.config.sandbox?.limits,
    });
    if (state.leavingRuntime) await state.leavingRuntime;
    if (!state.harness.alive && state.harness.runtimeLost) await this.#leaveRuntime(runner, work.run, state);
    if (!state.harness.alive) {
      let restarted = await this.#restart(state);
      // The restart found the runtime gone (its pair never got going): the run moves to a harness of its own.
      if (state.harness.runtimeLost) {
        await this.#leaveRuntime(runner, work.run, state);
        restarted = state.harness.alive || !state.load.ok;
      }
      if (!restarted) return harnessFailure(state, undefined);
      const load = state.load as HarnessLoad; // replaced by the restart
      if (!load.ok) return loadFailure(load.error);
    }
    const request: Omit<CaseRequest, "id"> = {
      wall_ms: limits.wallMs,
      cpu_ms: limits.cpuMs,
      time_ms: limits.cpuTreeMs,
      disk_bytes: limits.diskBytes,
      disk_entries: DISK_ENTRY_LIMIT,
      memory_bytes: limits.memoryBytes,
      output_bytes: limits.outputBytes,
      // The return value's JSON text gets the same cap as each output stream.
      value_bytes: limits.outputBytes,
    };
    // The task file's own text of the input (numbers exactly as written) when nothing changed the input on its way.
    const exact = work.run.loaded.caseJson?.[work.index];
    const argsJson = exact && input === work.testCase.input ? exact.input : JSON.stringify(input);
    const isolation = state.harness.isolation;
    let reply: CaseReply;
    try {
      reply = await state.harness.run(request, argsJson);
    } catch (error) {
      if (error instanceof CaseOverranError) {
        return {
          actual: null,
          status: "timeout",
          message: `the call did not end within ${error.wallMs} ms (the wall-clock backstop of its ${limits.cpuTreeMs} ms time limit) and the harness did not stop it; the runner stopped the harness`,
          comparisons: [],
          details: { harness: "stopped", isolation },
        };
      }
      if (error instanceof HarnessDiedError && error.details.runtime_lost === true) {
        // Not this sample's doing (or not provably so): the case runs again where no other sample can reach it.
        await this.#leaveRuntime(runner, work.run, state);
        return this.#runCase(runner, state, work, input);
      }
      if (error instanceof HarnessDiedError) return harnessFailure(state, error);
      throw error;
    }
    return outcomeOf(reply, { id: reply.id, ...request }, work, isolation, exact?.expected);
  }

  /**
   * The warm runtime this run was in was lost (it died, stalled or misbehaved, possibly through another sample):
   * the rest of the run, and the cases that were in flight, go to a sandboxed harness of the run's own. Once per
   * run, shared by every case that noticed; it does not count as one of the run's restarts.
   */
  async #leaveRuntime(runner: Runner, run: TaskRun, state: FunctionRunState): Promise<void> {
    if (state.where === "own") return;
    state.leavingRuntime ??= (async () => {
      const spares = sparesFor(run);
      const own = await this.#startOwn(run, state.workspace, harnessLimits(runner, run, spares), spares);
      const old = state.harness;
      state.where = "own";
      state.harness = own.harness;
      state.load = own.load;
      state.signature = own.signature ?? state.signature;
      state.startHarness = own.startHarness;
      state.cleanups.push(...own.cleanups);
      await old.stop(0);
    })();
    await state.leavingRuntime;
  }

  /** Starts a fresh harness after a crash, once for all the cases that noticed; false when out of restarts. */
  async #restart(state: FunctionRunState): Promise<boolean> {
    if (!state.restarting) {
      if (state.restarts >= this.#maxRestarts) return false;
      state.restarts++;
      state.restarting = (async () => {
        await state.harness.stop(0);
        const { harness, load } = await state.startHarness();
        state.harness = harness;
        state.load = load;
      })().finally(() => {
        state.restarting = undefined;
      });
    }
    await state.restarting;
    return state.harness.alive || !state.load.ok;
  }
}

/** Children forked ahead of need: one per case run at once, within reason. */
function sparesFor(run: TaskRun): number {
  return Math.min(Math.max(run.jobs, 1), 8);
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

function loadFailure(error: LoadErrorMessage): CaseOutcome {
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

function harnessFailure(state: FunctionRunState, error: HarnessDiedError | undefined): CaseOutcome {
  const message = error
    ? `${error.message} (while this case ran)`
    : `the function harness died ${state.restarts + 1} time(s) in this task run; the remaining cases were not run`;
  return { actual: null, status: "error", message, comparisons: [], details: { harness: "died", ...(error?.details ?? {}) } };
}
