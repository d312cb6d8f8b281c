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
    cpuMs: limits.cpuMs ?? defaults.cpu_ms ?? Math.max(limits.wallMs, DEFAULT_LIMITS.cpuMs),
    memoryBytes: limits.memoryBytes ?? defaults.memory_bytes ?? DEFAULT_LIMITS.memoryBytes,
    maxProcesses: limits.maxProcesses ?? defaults.processes ?? DEFAULT_LIMITS.maxProcesses,
    outputBytes: limits.outputBytes ?? defaults.output_bytes ?? DEFAULT_LIMITS.outputBytes,
    fileSizeBytes: limits.fileSizeBytes ?? defaults.file_bytes ?? DEFAULT_LIMITS.fileSizeBytes,
  };
}
