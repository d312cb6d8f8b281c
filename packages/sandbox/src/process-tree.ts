/**
 * Killing a sandboxed process tree. With a pid namespace, killing its pid 1 kills everything inside
 * (the kernel does it); without one we kill the process group and then sweep for processes that
 * detached (setsid, double fork) by a marker variable in their environment. Finding and stopping processes is
 * the process layer's (@skillrig/process); what marks a run's processes is the sandbox's.
 */
import { processesOfUid, processesWithEnvironment, stopThenKill } from "@skillrig/process";

/** The name of the variable that marks every process of one run (levels without a pid namespace). */
export const RUN_MARKER_VARIABLE = "SKILLRIG_SANDBOX_RUN";

/** Pids whose environment carries `RUN_MARKER_VARIABLE=marker` (readable for our own uid, or all when root). */
export function findMarkedProcesses(marker: string): number[] {
  return processesWithEnvironment(RUN_MARKER_VARIABLE, marker);
}

/** Kills every process of a run found by its marker (levels without a pid namespace). */
export function sweepMarkedProcesses(marker: string): number {
  return stopThenKill(() => findMarkedProcesses(marker));
}

/**
 * Kills everything still running as a per-run uid before the uid goes to another run. Without a pid namespace this
 * is what catches a process that shed the marker variable (re-executed itself with a clean environment) and
 * detached: it cannot shed its uid.
 */
export function sweepProcessesOfUid(uid: number): number {
  return stopThenKill(() => processesOfUid(uid));
}
