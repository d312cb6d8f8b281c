/**
 * A deliverable type whose cases each start a process: the contract's script and cli types, and a team's own (a
 * Node CLI, a compiled tool). One case = a fresh case folder with the case's `files`, `<runtime> <entry> argv...`
 * fed `stdin` in the sandbox, then stdout, stderr, exit code and the files created or changed, compared by the
 * oracle. Input and expected values are checked by the Input Contract's process rules before anything runs.
 *
 *   export default () => defineProcessDeliverable({
 *     name: "@acme/skillrig-deliverable-node-cli", type: "node-cli", argv: true, runtime: ["node"],
 *     description: "a Node.js command-line tool: node <entrypoint> argv...",
 *   });
 */
import type { SkillrigPlugin } from "@skillrig/core";
import { type DeliverableDefinition, defineDeliverable } from "./define-deliverable.js";
import { caseFileBounds } from "./process/case-file-bounds.js";
import { runProcessCase } from "./process/run-process-case.js";
import { SampleLanes } from "./process/sample-lanes.js";
import { type ProcessInput, validateProcessExpected, validateProcessInput } from "./process/validate-process-case.js";

export interface ProcessDeliverableDefinition {
  /** The plugin's name (its package name). */
  name: string;
  /** The `deliverable_type` it grades. */
  type: string;
  description: string;
  /** Every case input carries `argv`, a list of strings (the contract's cli rule); false: no argv (its script rule). */
  argv: boolean;
  /**
   * What starts the entry file: `["python3"]` (the default) runs `python3 <entry> argv...`, `["node"]` runs Node,
   * `[]` runs the entry file itself (it must be executable). A bare program name is looked up on PATH and its
   * installation is made readable inside the sandbox; python3 is the user's real interpreter, not a shim.
   */
  runtime?: readonly string[];
  /** Variables every case's process gets. Default for a Python runtime: no bytecode files, UTF-8 I/O. */
  env?: Record<string, string>;
  /** The file a deliverable given as text is written to (as `defineDeliverable`'s). Omitted: the task's `entrypoint`. */
  deliverableFile?: DeliverableDefinition<unknown>["deliverableFile"];
  /** A user's path -> the deliverable it names (as `defineDeliverable`'s). Omitted: the file, or a folder holding the `entrypoint`. */
  resolveDeliverable?: DeliverableDefinition<unknown>["resolveDeliverable"];
}

/** Python writes bytecode next to the code (the snapshot is read-only) and picks its I/O encoding from the locale. */
const PYTHON_ENV = { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" };

interface ProcessSession {
  root: string;
  entryFile: string;
  /** A Python runtime on a sandbox with a sample host: the run's samples; otherwise every case is a process. */
  lanes?: SampleLanes;
}

export function defineProcessDeliverable(definition: ProcessDeliverableDefinition): SkillrigPlugin {
  const runtime = definition.runtime ?? ["python3"];
  const env = definition.env ?? (/^python/.test(runtime[0] ?? "") ? PYTHON_ENV : {});
  // The sample host runs `python3 <entry>` as the sandbox's own python3 with the harness's environment (PYTHON_ENV's
  // variables): a runtime with arguments of its own, another interpreter or variables of the type's own run as processes.
  const sampleHost = runtime.length === 1 && /^python3?$/.test(runtime[0] ?? "") && definition.env === undefined;
  const shape = { type: definition.type, argv: definition.argv };
  return defineDeliverable<ProcessSession, ProcessInput>({
    name: definition.name,
    type: definition.type,
    description: definition.description,
    ...(definition.deliverableFile ? { deliverableFile: definition.deliverableFile } : {}),
    ...(definition.resolveDeliverable ? { resolveDeliverable: definition.resolveDeliverable } : {}),
    async open({ runner, run, workspace }) {
      const { root, entryFile, snapshotDir } = workspace;
      // A Python program runs in forks of the sample host where the sandbox has one; another runtime (node, an
      // executable) has no interpreter to fork from, and runs a process per case.
      const lanes = sampleHost ? await SampleLanes.open({ runner, run, root, snapshotDir, entryFile, runtime }) : undefined;
      return { root, entryFile, ...(lanes ? { lanes } : {}) };
    },
    checkCase({ testCase, casePointer, runner }) {
      const bounds = caseFileBounds(runner.config);
      const input = validateProcessInput(shape, testCase.input, casePointer, bounds);
      const expected = validateProcessExpected(testCase.expected, casePointer, bounds);
      return { value: input.value, violations: [...input.violations, ...expected.violations] };
    },
    runCase: (session, work, input, runner) =>
      session.lanes ? session.lanes.runCase(work, input) : runProcessCase({ runner, work, input, ...session, runtime, env }),
    close: (session) => session.lanes?.close(),
  });
}
