/**
 * Fills the limits a caller left out: first from the config's `sandbox.limits`, then from core's
 * defaults, so every level enforces the same numbers. Deliverable plugins normally pass limits already
 * resolved with core's `resolveCaseLimits`; this is the safety net for callers that pass only `wallMs`.
 */
import { DEFAULT_LIMITS, type ResourceLimits, type SandboxLimitsConfig } from "@skillrig/core";

export type EffectiveLimits = Required<ResourceLimits>;

export function effectiveLimits(limits: ResourceLimits, defaults: SandboxLimitsConfig = {}): EffectiveLimits {
  return {
    wallMs: limits.wallMs,
    // Like resolveCaseLimits: CPU at least the wall limit, so a busy loop ends as a timeout (a spawn()
    // without a wall limit, wallMs Infinity, gets the default CPU limit).
    cpuMs: limits.cpuMs ?? defaults.cpu_ms ?? Math.max(Number.isFinite(limits.wallMs) ? limits.wallMs : 0, DEFAULT_LIMITS.cpuMs),
    memoryBytes: limits.memoryBytes ?? defaults.memory_bytes ?? DEFAULT_LIMITS.memoryBytes,
    maxProcesses: limits.maxProcesses ?? defaults.processes ?? DEFAULT_LIMITS.maxProcesses,
    outputBytes: limits.outputBytes ?? defaults.output_bytes ?? DEFAULT_LIMITS.outputBytes,
    fileSizeBytes: limits.fileSizeBytes ?? defaults.file_bytes ?? DEFAULT_LIMITS.fileSizeBytes,
    // The tree's CPU is watched only when asked (a case's time limit); a long-lived spawn() is bounded by its rlimits.
    cpuTreeMs: limits.cpuTreeMs ?? Number.POSITIVE_INFINITY,
    diskBytes: limits.diskBytes ?? defaults.disk_bytes ?? DEFAULT_LIMITS.diskBytes,
  };
}
