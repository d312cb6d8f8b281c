/**
 * A deliverable type as a team writes one: what a task run opens (a session over the snapshotted deliverable),
 * how one case's input is checked, how one case runs, what closes. The kit does the rest the same way for every
 * type: it claims the type, snapshots the deliverable into a private temp folder (core's snapshot rules: a lone
 * file alone, no links out, modes normalised), keeps each run's session (typed, keyed by the run), puts the task
 * file's name on every violation, and removes the folder when the run ends, whatever happened.
 *
 *   task.setUp[type]        snapshot, then `open`          -> session
 *   task.resolveInput[type] `checkCase` per case            -> violations, the input the case runs with
 *   task.execute[type]      `runCase`                       -> CaseOutcome (data; the oracle compares and decides)
 *   task.tearDown[type]     `close`, then the folder goes
 *   close (runner)          `closeRuntime` (warm runtimes kept across runs)
 *
 * and where a deliverable is, before any run (both optional; the oracle's entrypoint rule otherwise):
 *   task.resolveDeliverable[type]  `resolveDeliverable`  a user's path -> Deliverable
 *   task.deliverableFile[type]     `deliverableFile`     the file a deliverable given as text is written to
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ConfigSection,
  type Deliverable,
  type DeliverablePathRequest,
  copyDeliverable,
  pointer,
  type CaseOutcome,
  type CaseWork,
  type Runner,
  type SkillrigPlugin,
  type Task,
  type TaskRun,
  type TestCase,
  type Violation,
} from "@skillrig/core";

/** Where a run's snapshot lives. */
export interface DeliverableWorkspace {
  /** The run's private temp folder (0755, removed at the end of the run): put case folders and harness files here. */
  root: string;
  /** The snapshot of the deliverable: `root/deliverable`. */
  snapshotDir: string;
  /** The entry file inside the snapshot (the task's `entrypoint` file for script/cli, the module for function). */
  entryFile: string;
}

export interface OpenContext {
  runner: Runner;
  run: TaskRun;
  workspace: DeliverableWorkspace;
}

export interface CaseCheck<Session> {
  session: Session;
  runner: Runner;
  work: CaseWork;
  testCase: TestCase;
  /** JSON pointer of the case in the task file: `/tests/3`. */
  casePointer: string;
}

export interface CaseCheckResult<Input> {
  /** The input the case runs with (optional parts filled in); omitted: the case's input as written. */
  value?: Input;
  /** Input Contract problems, each with the JSON pointer of the offending value; the kit adds the task file. */
  violations: Violation[];
  /** Said once per run, not per case. */
  warnings?: string[];
}

export interface DeliverableDefinition<Session, Input = unknown> {
  /** The plugin's name: its package name, used in taps and error messages. */
  name: string;
  /** The `deliverable_type` of the task files this plugin grades. */
  type: string;
  /** One line for listings (`skillrig plugins`, `GET /v1/engines`). */
  description: string;
  /** A task run starts: the deliverable is snapshotted in `workspace`; start what its cases need. */
  open(context: OpenContext): Promise<Session> | Session;
  /** Input Contract checks for one case, before any case runs. Omitted: every input is accepted as written. */
  checkCase?(check: CaseCheck<Session>): CaseCheckResult<Input>;
  /** Runs one case. Say what the deliverable did; never decide pass or fail (the oracle compares). */
  runCase(session: Session, work: CaseWork, input: Input, runner: Runner): Promise<CaseOutcome>;
  /** The run ended (always, even when a case threw). The workspace folder is removed after this. */
  close?(session: Session): Promise<void> | void;
  /** The runner is closing: stop what the plugin kept across runs. */
  closeRuntime?(): Promise<void> | void;
  /**
   * The entry file, relative to the deliverable's folder, that skillrig writes a deliverable given as text to (a
   * samples file's `solution`, the solve skill's output). Omitted: the task's `entrypoint`.
   */
  deliverableFile?(task: Pick<Task, "deliverable_type" | "entrypoint">): string;
  /**
   * A user's path to a deliverable (`--deliverable`, a samples file's `path`), known to exist -> the `Deliverable`
   * it names; throw a `SkillrigError("usage", ...)` naming the path when it is not one. Omitted: the file itself, or
   * a folder holding the task's `entrypoint` file.
   */
  resolveDeliverable?(request: DeliverablePathRequest): Promise<Deliverable> | Deliverable;
  /** Config sections the type reads (`runner.config.<section>`), validated when the config loads (docs/plugin-api.md). */
  configSections?: readonly ConfigSection[];
}

/** A run whose `open` succeeded. */
interface OpenRun<Session> {
  session: Session;
  workspace: DeliverableWorkspace;
}

/** The plugin a definition makes; `sessionOf` lets a plugin's own tests reach a run's session. */
export interface DeliverablePlugin<Session> extends SkillrigPlugin {
  sessionOf(run: TaskRun): Session | undefined;
}

/** Makes a plugin of a deliverable definition. */
export function defineDeliverable<Session, Input = unknown>(definition: DeliverableDefinition<Session, Input>): DeliverablePlugin<Session> {
  const { name, type } = definition;
  // Keyed by the run object: a session lives exactly as long as its run is set up.
  const runs = new WeakMap<TaskRun, OpenRun<Session>>();
  return {
    name,
    ...(definition.configSections ? { configSections: definition.configSections } : {}),
    sessionOf: (run) => runs.get(run)?.session,
    apply(runner: Runner) {
      const { task } = runner.hooks;
      const openRun = (run: TaskRun): OpenRun<Session> => {
        const open = runs.get(run);
        // The oracle sets up every run before it checks or runs a case; its absence is a bug in what drives the hooks.
        if (!open) throw new Error(`${name}: task.setUp did not run for task "${run.loaded.task.task_id}"`);
        return open;
      };
      runner.claim("deliverable", type, name, { description: definition.description });

      task.setUp.for(type).tapPromise(name, async (run) => {
        const workspace = await openWorkspace(run);
        try {
          runs.set(run, { session: await definition.open({ runner, run, workspace }), workspace });
        } catch (error) {
          // tearDown finds no session for this run: the folder goes now.
          await rm(workspace.root, { recursive: true, force: true });
          throw error;
        }
      });

      task.resolveInput.for(type).tap(name, (resolution, work) => {
        if (!definition.checkCase) return resolution;
        const open = openRun(work.run);
        const casePointer = pointer("tests", work.index);
        const checked = definition.checkCase({ session: open.session, runner, work, testCase: work.testCase, casePointer });
        const file = work.run.loaded.displayPath;
        return {
          value: checked.value === undefined ? resolution.value : checked.value,
          violations: [...resolution.violations, ...checked.violations.map((v) => ({ file, ...v }))],
          ...(checked.warnings?.length || resolution.warnings
            ? { warnings: [...(resolution.warnings ?? []), ...(checked.warnings ?? [])] }
            : {}),
        };
      });

      task.execute.for(type).tapPromise(name, async ({ work, input }) => {
        const open = openRun(work.run);
        return definition.runCase(open.session, work, input as Input, runner);
      });

      task.tearDown.for(type).tapPromise(name, async (run) => {
        const open = runs.get(run);
        if (!open) return;
        runs.delete(run);
        try {
          await definition.close?.(open.session);
        } finally {
          await rm(open.workspace.root, { recursive: true, force: true });
        }
      });

      const { deliverableFile, resolveDeliverable } = definition;
      if (deliverableFile) task.deliverableFile.for(type).tap(name, (request) => deliverableFile(request.task));
      if (resolveDeliverable) task.resolveDeliverable.for(type).tapPromise(name, async (request) => resolveDeliverable(request));

      if (definition.closeRuntime) runner.hooks.close.tapPromise(name, async () => definition.closeRuntime?.());
    },
  };
}

async function openWorkspace(run: TaskRun): Promise<DeliverableWorkspace> {
  const root = await mkdtemp(join(tmpdir(), `skillrig-${run.loaded.task.deliverable_type.replace(/[^\w.-]/g, "_")}-`));
  try {
    // The sandbox runs code as an unprivileged user, which must be able to read the snapshot.
    await chmod(root, 0o755);
    const snapshotDir = join(root, "deliverable");
    const entryFile = await copyDeliverable(run.deliverable, snapshotDir);
    return { root, snapshotDir, entryFile };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
