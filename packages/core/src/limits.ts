/**
 * Resource limits for one case: the case's own `timeout_ms`, then the task's `limits`, then the
 * config's `sandbox.limits`, then these defaults. Resolved once here so every deliverable plugin agrees.
 */
import type { SandboxLimitsConfig } from "./config/define-config.js";
import type { Task, TestCase } from "./oracle-types.js";
import type { ResourceLimits } from "./sandbox.js";

export const DEFAULT_LIMITS: Required<ResourceLimits> = {
  wallMs: 10_000,
  cpuMs: 10_000,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  outputBytes: 1024 * 1024,
  fileSizeBytes: 64 * 1024 * 1024,
};

export function resolveCaseLimits(
  task: Pick<Task, "limits">,
  testCase: Pick<TestCase, "timeout_ms"> | undefined,
  config: { timeout_ms?: number; limits?: SandboxLimitsConfig } = {},
): Required<ResourceLimits> {
  const t = task.limits ?? {};
  const c = config.limits ?? {};
  const wallMs = testCase?.timeout_ms ?? t.timeout_ms ?? config.timeout_ms ?? DEFAULT_LIMITS.wallMs;
  return {
    wallMs,
    // CPU time never needs to exceed wall time by much; keep it at least the wall limit so a busy loop ends as a timeout.
    cpuMs: t.cpu_ms ?? c.cpu_ms ?? Math.max(wallMs, DEFAULT_LIMITS.cpuMs),
    memoryBytes: t.memory_bytes ?? c.memory_bytes ?? DEFAULT_LIMITS.memoryBytes,
    maxProcesses: t.processes ?? c.processes ?? DEFAULT_LIMITS.maxProcesses,
    outputBytes: t.output_bytes ?? c.output_bytes ?? DEFAULT_LIMITS.outputBytes,
    fileSizeBytes: t.file_bytes ?? c.file_bytes ?? DEFAULT_LIMITS.fileSizeBytes,
  };
}
