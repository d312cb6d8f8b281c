/**
 * A worker thread that runs jobs for the server, so runJob's file work and the engine's stream parsing do not
 * hold up the thread that answers HTTP requests. It builds its own runner the way the host built the server's, with
 * core's `openProjectRunner` (the same config file, the host's built-in plugins and config sections, sent as data in
 * `builtins`), and takes one job at a time.
 *
 * Messages in:  { type: "run-skill", jobId, request, runsDir } | { type: "run-oracle", jobId, taskText, deliverableDir }
 *               | { type: "run-solve", jobId, request, runDir } | { type: "cancel", jobId }
 * Messages out: { type: "ready" } | { type: "event", jobId, event } | { type: "case", jobId, verdict }
 *               | { type: "done", jobId, value } | { type: "failed", jobId, error } | { type: "fatal", error }
 */
import { parentPort, workerData } from "node:worker_threads";
import { isSkillrigError, openProjectRunner, type ProjectBuiltins } from "@skillrig/core";
import { oracleConfigSection } from "@skillrig/oracle/config-section";
import { costConfigSection, runConfigSection, skillsConfigSection } from "@skillrig/skills/config-section";
import { serverConfigSection } from "./config-section.js";
import { createJobExecution, type SolveAttemptRequest } from "./job-execution.js";

/** Without the host's built-ins (the server used as a library): the sections of what the server itself reads (its own, the oracle's, the skills'). */
const ownSections = [serverConfigSection, oracleConfigSection, skillsConfigSection, runConfigSection, costConfigSection];

export interface JobWorkerData {
  cwd: string;
  configFile?: string;
  /** The host's built-in plugins and config sections, as the host built its runner with them (the CLI's builtins.ts). */
  builtins?: ProjectBuiltins;
}

type Incoming =
  | { type: "run-skill"; jobId: string; request: Parameters<ReturnType<typeof createJobExecution>["runSkillJob"]>[0]; runsDir: string }
  | { type: "run-oracle"; jobId: string; taskText: string; deliverableDir: string }
  | { type: "run-solve"; jobId: string; request: SolveAttemptRequest; runDir: string }
  | { type: "cancel"; jobId: string }
  | { type: "close" };

const port = parentPort!;
const data = workerData as JobWorkerData;

function serialize(error: unknown) {
  if (isSkillrigError(error)) return error.toJSON();
  return { code: "unhandled" as const, message: `unexpected error in the job worker: ${(error as Error)?.message ?? String(error)}` };
}

try {
  const runner = await openProjectRunner({
    cwd: data.cwd,
    configPath: data.configFile,
    builtins: data.builtins,
    sections: data.builtins ? [] : ownSections,
  });
  const execution = createJobExecution(runner);
  const controllers = new Map<string, AbortController>();

  port.on("message", async (message: Incoming) => {
    if (message.type === "cancel") {
      controllers.get(message.jobId)?.abort();
      return;
    }
    if (message.type === "close") {
      // The pool is shutting down: what the runner keeps across jobs (the shared sample host) stops first.
      await runner.close().catch(() => undefined);
      port.postMessage({ type: "closed" });
      return;
    }
    const controller = new AbortController();
    controllers.set(message.jobId, controller);
    try {
      const onEvent = (event: unknown) => port.postMessage({ type: "event", jobId: message.jobId, event });
      const onCase = (verdict: unknown) => port.postMessage({ type: "case", jobId: message.jobId, verdict });
      const value =
        message.type === "run-skill"
          ? await execution.runSkillJob(message.request, {
              jobId: message.jobId,
              runsDir: message.runsDir,
              signal: controller.signal,
              onEvent,
            })
          : message.type === "run-solve"
            ? await execution.runSolveAttempt(message.request, { runDir: message.runDir, signal: controller.signal, onEvent, onCase })
            : await execution.runOracle(execution.loadTaskText(message.taskText), message.deliverableDir, {
                signal: controller.signal,
                onCase,
              });
      port.postMessage({ type: "done", jobId: message.jobId, value });
    } catch (error) {
      port.postMessage({ type: "failed", jobId: message.jobId, error: serialize(error) });
    } finally {
      controllers.delete(message.jobId);
    }
  });
  port.postMessage({ type: "ready" });
} catch (error) {
  port.postMessage({ type: "fatal", error: serialize(error) });
}
