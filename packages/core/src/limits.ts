/**
 * Resource limits for one case: the case's own `timeout_ms`, then the task's `limits`, then the
 * config's `sandbox.limits`, then these defaults. Resolved once here so every deliverable plugin agrees.
 *
 * A case's time limit counts CPU time: the CPU its own processes used, all of them together (`cpuTreeMs`), so its
 * verdict does not depend on what else runs on the machine (another sample, another job, another user). The wall
 * clock stays as a backstop (`wallMs`, `timeBackstopMs`), so a case that sleeps or blocks still ends, as `timeout`.
 */
import type { SandboxLimitsConfig } from "./config/define-config.js";
import type { Task, TestCase } from "./oracle-types.js";
import type { ResourceLimits } from "./sandbox.js";

/**
 * The defaults. `wallMs` and `cpuTreeMs` here are the default time limit (`timeout_ms`), before its backstop;
 * `cpuMs` is each process's own limit (at least the time limit).
 */
export const DEFAULT_LIMITS: Required<ResourceLimits> = {
  wallMs: 10_000,
  cpuMs: 10_000,
  cpuTreeMs: 10_000,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  outputBytes: 1024 * 1024,
  fileSizeBytes: 64 * 1024 * 1024,
  diskBytes: 256 * 1024 * 1024,
};

/** Entries (files, folders, links) a case may have in its working folder at once; more is `output_limit`. */
export const DISK_ENTRY_LIMIT = 10_000;

/**
 * The wall-clock backstop of a time limit: max(3 x limit, limit + 10 s). Generous on purpose: a case's CPU is what
 * is limited, and the wall clock only ends a case that sleeps or blocks (slow on any machine). Three times the
 * limit leaves a case that needs all its CPU time room for a machine shared by three times its work; the 10 s
 * floor covers short limits, where start-up and a loaded machine's scheduling delays weigh most.
 */
export function timeBackstopMs(limitMs: number): number {
  if (!Number.isFinite(limitMs)) return limitMs;
  return Math.max(3 * limitMs, limitMs + 10_000);
}

export function resolveCaseLimits(
  task: Pick<Task, "limits">,
  testCase: Pick<TestCase, "timeout_ms"> | undefined,
  config: { timeout_ms?: number; limits?: SandboxLimitsConfig } = {},
): Required<ResourceLimits> {
  const t = task.limits ?? {};
  const c = config.limits ?? {};
  const timeMs = testCase?.timeout_ms ?? t.timeout_ms ?? config.timeout_ms ?? DEFAULT_LIMITS.wallMs;
  // Each process's own CPU limit (the kernel's exact count, backing up the sampled one of the tree): at least the
  // time limit unless set; set lower, it bounds the tree too.
  const cpuMs = t.cpu_ms ?? c.cpu_ms ?? Math.max(timeMs, DEFAULT_LIMITS.cpuMs);
  return {
    wallMs: timeBackstopMs(timeMs),
    cpuMs,
    cpuTreeMs: Math.min(timeMs, cpuMs),
    memoryBytes: t.memory_bytes ?? c.memory_bytes ?? DEFAULT_LIMITS.memoryBytes,
    maxProcesses: t.processes ?? c.processes ?? DEFAULT_LIMITS.maxProcesses,
    outputBytes: t.output_bytes ?? c.output_bytes ?? DEFAULT_LIMITS.outputBytes,
    fileSizeBytes: t.file_bytes ?? c.file_bytes ?? DEFAULT_LIMITS.fileSizeBytes,
    diskBytes: c.disk_bytes ?? DEFAULT_LIMITS.diskBytes,
  };
}
