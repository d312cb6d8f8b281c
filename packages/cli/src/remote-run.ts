/**
 * `skillrig test ... --server URL`: the task is validated here, then graded by a jobs server's workers
 * (@skillrig/server's runOracleRemotely); the report comes back through this runner's `runEnd` hook, so the same
 * reporters (console summary, json, junit) write the same files and text as after a local run. The token comes
 * from SKILLRIG_SERVER_TOKEN, never from the command line (where `ps` would show it).
 */
import { resolve } from "node:path";
import type { LoadedTask, Runner, TaskReport } from "@skillrig/core";
import { runOracleRemotely } from "@skillrig/server";

import { SERVER_TOKEN_ENV } from "./server-token.js";

export { SERVER_TOKEN_ENV };

export interface RemoteTaskOptions {
  server: string;
  loaded: LoadedTask;
  /** The --deliverable argument as given (a file or a folder), against `cwd`. */
  deliverable: string;
  cwd: string;
  signal: AbortSignal;
  progress: NodeJS.WritableStream;
}

export async function runTaskOnServer(runner: Runner, options: RemoteTaskOptions): Promise<TaskReport> {
  const info = { kind: "task" as const, id: options.loaded.task.task_id, startedAt: new Date() };
  const started = performance.now();
  const total = options.loaded.task.tests.length;
  let done = 0;
  let report: TaskReport | undefined;
  options.progress.write(`task ${info.id} (${total} case(s)) on ${options.server}\n`);
  await runner.hooks.runStart.promise(info);
  try {
    report = await runOracleRemotely({
      url: options.server,
      token: process.env[SERVER_TOKEN_ENV] || undefined,
      task: options.loaded.task,
      deliverable: resolve(options.cwd, options.deliverable),
      signal: options.signal,
      onCase: (verdict) => {
        done += 1;
        options.progress.write(`  [${done}/${total}] ${verdict.status} ${verdict.name} (${verdict.duration_ms} ms)\n`);
      },
    });
    return report;
  } finally {
    const ok = report !== undefined;
    await runner.hooks.runEnd.promise({ ...info, ok, durationMs: Math.round(performance.now() - started), ...(ok ? { report } : {}) });
  }
}
