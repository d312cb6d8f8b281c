/**
 * `--server URL` for `skillrig test` and `skillrig solve`: the work is done by a jobs server's workers, and the
 * report is built here by the same code as a local run, so reporters, exit codes and --json are the same.
 *
 * - one task: `runTaskOnServer`, one oracle run; the report goes through this runner's `runEnd` hook to the reporters;
 * - a suite: `remoteSampleGrader`, one oracle run per (task, sample), handed to `runSuite` in place of local grading;
 * - solve: `remoteSolveExecution`, the reference checks as oracle runs and every attempt as a solve job.
 *
 * The token comes from SKILLRIG_SERVER_TOKEN, never from the command line (where `ps` would show it).
 */
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import {
  isSkillrigError,
  SkillrigError,
  type Deliverable,
  type ErrorCode,
  type LoadedTask,
  type Runner,
  type TaskReport,
} from "@skillrig/core";
import { narrowTask, sampleStatus, withCompleteness, withUserPaths, type CaseSelection, type RunSuiteOptions } from "@skillrig/oracle";
import { runOracleRemotely, runSolveAttemptRemotely, type ServerAccess } from "@skillrig/server";
import { checkReference, notRun, type AttemptResult, type SolveExecution } from "@skillrig/solve";

import { SERVER_TOKEN_ENV } from "./server-option.js";

export function serverAccess(url: string): ServerAccess {
  return { url, token: process.env[SERVER_TOKEN_ENV] || undefined };
}

/**
 * Where a jobs server keeps an oracle run's upload, as its tracebacks name it: `deliverable/...` relative to the job's
 * run folder (a server names none of its folders, docs/server.md "No server paths"), or `<data>/runs/<job id>/
 * deliverable` from a server before that rule.
 */
const SERVER_DELIVERABLE_DIR = /(?:(?:\/[^/\s"'<>]+)*?\/runs\/[0-9a-f-]{36}\/deliverable|(?<=^|[\s"'(])deliverable)(?=\/)/g;

/** The server's report with the user's own deliverable folder in its messages and tracebacks. */
function withLocalPaths(report: TaskReport, dir: string): TaskReport {
  return { ...report, cases: report.cases.map((c) => withUserPaths(c, { dir }, SERVER_DELIVERABLE_DIR)) };
}

/** What to upload for a deliverable: the file alone when it was given as a file, else its folder. */
function uploadPath(deliverable: Deliverable): string {
  return deliverable.entryOnly ? deliverable.entryFile : deliverable.dir;
}

export interface RemoteTaskOptions {
  server: string;
  loaded: LoadedTask;
  /** The --deliverable argument as given (a file or a folder), against `cwd`. */
  deliverable: string;
  cwd: string;
  signal: AbortSignal;
  progress: NodeJS.WritableStream;
  /** The cases to grade (`-k`, `--last-failed`, `--limit`): only those are sent; the report keeps the task file's indexes. */
  select?: CaseSelection;
}

export async function runTaskOnServer(runner: Runner, options: RemoteTaskOptions): Promise<TaskReport> {
  const info = { kind: "task" as const, id: options.loaded.task.task_id, startedAt: new Date() };
  const started = performance.now();
  const narrowed = narrowTask(options.loaded, options.select);
  const total = narrowed.loaded.task.tests.length;
  let done = 0;
  let report: TaskReport | undefined;
  options.progress.write(`task ${info.id} (${total} case(s)) on ${options.server}\n`);
  try {
    report = await runOracleRemotely({
      ...serverAccess(options.server),
      task: narrowed.loaded,
      deliverable: resolve(options.cwd, options.deliverable),
      signal: options.signal,
      onCase: (verdict) => {
        done += 1;
        options.progress.write(`  [${done}/${total}] ${verdict.status} ${verdict.name} (${verdict.duration_ms} ms)\n`);
      },
    });
    const local = resolve(options.cwd, options.deliverable);
    // A server's report that lacks verdicts (a truncated results stream) is marked incomplete, never read as a pass.
    const checked = withCompleteness(narrowed.restore(report), total, `the oracle run on ${options.server}`);
    report = withLocalPaths(checked, (await isDirectory(local)) ? local : dirname(local));
    return report;
  } finally {
    const ok = report !== undefined;
    await runner.hooks.runEnd.promise({ ...info, ok, durationMs: Math.round(performance.now() - started), ...(ok ? { report } : {}) });
  }
}

/** Errors that belong to one sample (as in a local suite run): the sample records them and the suite goes on. */
const SAMPLE_ERRORS = new Set(["invalid_task", "invalid_test_format", "usage"]);

/** A suite's grading on the server: each (task, sample) is one oracle run, graded by whichever worker is free. */
export function remoteSampleGrader(server: string): NonNullable<RunSuiteOptions["grade"]> {
  const access = serverAccess(server);
  return async ({ loaded, deliverable, signal, select }) => {
    try {
      const narrowed = narrowTask(loaded, select);
      const remote = await runOracleRemotely({ ...access, task: narrowed.loaded, deliverable: uploadPath(deliverable), signal });
      const checked = withCompleteness(narrowed.restore(remote), narrowed.loaded.task.tests.length, `the oracle run on ${server}`);
      const report = withLocalPaths(checked, deliverable.dir);
      return { status: sampleStatus(report.summary, report.incomplete), report };
    } catch (error) {
      // Canceled (Ctrl-C) on the server before it could report: as a local run reports a sample it did not run.
      if (signal?.aborted) return { status: "error", error: { code: "interrupted", message: "canceled before it was graded" } };
      if (isSkillrigError(error) && SAMPLE_ERRORS.has(error.code)) return { status: "error", error: error.toJSON() };
      throw error;
    }
  };
}

/**
 * A solve batch's work on the server. The reference check of each task is an oracle run of its reference solution
 * (the verdict rules are solve's own `checkReference`); each attempt is one solve job, which runs the engine and
 * grades the deliverable on a worker, with the hidden tests kept out of the engine's reach there as here.
 */
export function remoteSolveExecution(runner: Runner, server: string): SolveExecution {
  const access = serverAccess(server);
  let engines: Promise<string[]> | undefined;
  const serverEngines = async (): Promise<string[]> => {
    const response = await fetch(`${access.url.replace(/\/+$/, "")}/v1/engines`, {
      headers: access.token ? { authorization: `Bearer ${access.token}` } : {},
    }).catch((error: Error) => {
      throw new SkillrigError("unhandled", `cannot reach the server at ${access.url} (listing its engines): ${error.message}`, {
        field: "--server",
        hint: "check the URL and that `skillrig serve` runs there",
      });
    });
    const body = (await response.json().catch(() => ({}))) as {
      engines?: Array<{ name: string }>;
      error?: { code: string; message: string };
    };
    if (response.status !== 200 || !body.engines) {
      throw new SkillrigError(
        (body.error?.code ?? "unhandled") as ErrorCode,
        `the server at ${access.url} refused to list its engines: ${body.error?.message ?? response.status}`,
        {
          field: "--server",
        },
      );
    }
    return body.engines.map((e) => e.name);
  };
  return {
    preflight: false,
    async requireEngine(name) {
      engines ??= serverEngines();
      const known = await engines;
      if (!known.includes(name)) {
        throw new SkillrigError("usage", `the server at ${access.url} has no engine "${name}" (it has ${known.join(", ") || "none"})`, {
          field: "--engine",
        });
      }
    },
    checkReference: (loaded, options) =>
      checkReference(runner, loaded, {
        ...options,
        grade: (task, deliverable) => runOracleRemotely({ ...access, task, deliverable: uploadPath(deliverable), signal: options.signal }),
      }),
    async runAttempt(spec): Promise<AttemptResult> {
      const total = spec.scored.task.tests.length;
      const end = await runSolveAttemptRemotely({
        ...access,
        task: spec.scored,
        engine: { name: spec.engine.name, label: spec.engine.label, ...(spec.engine.options ? { options: spec.engine.options } : {}) },
        attempt: spec.attempt,
        timeoutMs: spec.timeoutMs,
        signal: spec.signal,
      });
      if (end.result) return end.result;
      if (end.status === "canceled" && spec.signal?.aborted)
        return notRun(spec.loaded.task.task_id, spec.engine.label, spec.attempt, total);
      // Ended without an attempt of its own (a worker died and on_restart is fail, a job canceled by someone else).
      const error = end.error ?? { code: "unhandled", message: `the job ended ${end.status} without a result` };
      return {
        ...notRun(spec.loaded.task.task_id, spec.engine.label, spec.attempt, total),
        status: "engine_failed",
        message: `the solve job ${end.id} on ${access.url} ${end.status}: [${error.code}] ${error.message}${end.reason ? ` (${end.reason})` : ""}`,
      };
    },
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
