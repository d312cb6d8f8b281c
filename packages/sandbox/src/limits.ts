/** Fills the limits a caller left out from core's defaults, so every level enforces the same numbers. */
import { DEFAULT_LIMITS, type ResourceLimits } from "@skillrig/core";

export type EffectiveLimits = Required<ResourceLimits>;

export function effectiveLimits(limits: ResourceLimits): EffectiveLimits {
  return {
    wallMs: limits.wallMs,
    cpuMs: limits.cpuMs ?? DEFAULT_LIMITS.cpuMs,
    memoryBytes: limits.memoryBytes ?? DEFAULT_LIMITS.memoryBytes,
    maxProcesses: limits.maxProcesses ?? DEFAULT_LIMITS.maxProcesses,
    outputBytes: limits.outputBytes ?? DEFAULT_LIMITS.outputBytes,
    fileSizeBytes: limits.fileSizeBytes ?? DEFAULT_LIMITS.fileSizeBytes,
  };
}
