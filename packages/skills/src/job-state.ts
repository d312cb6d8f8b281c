/** Per-job facts the protocol's taps share with runJob without widening core's JobWork. */
import type { JobWork } from "@skillrig/core";

const warnings = new WeakMap<JobWork, string[]>();

/** Warnings for the job's result (`JobResult.warnings`). */
export function jobWarnings(work: JobWork): string[] {
  let list = warnings.get(work);
  if (!list) {
    list = [];
    warnings.set(work, list);
  }
  return list;
}

export function warnJob(work: JobWork, message: string): void {
  const list = jobWarnings(work);
  if (!list.includes(message)) list.push(message);
}
