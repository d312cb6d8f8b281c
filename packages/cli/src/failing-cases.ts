/**
 * The cases of a recorded report that did not pass, for `skillrig runs show`: a task report's `cases`, a suite's
 * per task and sample, a solve batch's per attempt. Found by shape (an array `cases` of `{ name, status }`) so every
 * report kind that grades cases is covered, with the task and sample it belongs to.
 */

export interface FailingCase {
  task?: string;
  sample?: number;
  name: string;
  status: string;
  message?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every case of `report` whose status is neither passed nor skipped, in report order. */
export function failingCases(report: unknown): FailingCase[] {
  const found: FailingCase[] = [];
  const walk = (value: unknown, context: { task?: string; sample?: number }, depth: number): void => {
    if (depth > 8) return; // reports are shallow; a deeper one is not ours to read
    if (Array.isArray(value)) {
      for (const item of value) walk(item, context, depth + 1);
      return;
    }
    if (!isObject(value)) return;
    const here = {
      task: typeof value.task_id === "string" ? value.task_id : context.task,
      sample: typeof value.sample === "number" ? value.sample : context.sample,
    };
    for (const [key, child] of Object.entries(value)) {
      if (key === "cases" && Array.isArray(child)) {
        for (const c of child) {
          if (!isObject(c) || typeof c.name !== "string" || typeof c.status !== "string") continue;
          if (c.status === "passed" || c.status === "skipped") continue;
          found.push({ ...here, name: c.name, status: c.status, ...(typeof c.message === "string" ? { message: c.message } : {}) });
        }
      } else if (typeof child === "object") walk(child, here, depth + 1);
    }
  };
  walk(report, {}, 0);
  return found;
}

/** The lines `runs show` prints: one per failing case (at most `limit`, then a count of the rest). */
export function failingCaseLines(report: unknown, limit = 20): string[] {
  const cases = failingCases(report);
  if (cases.length === 0) return [];
  const lines = cases.slice(0, limit).map((c) => {
    const where = [c.task !== undefined ? `task ${c.task}` : undefined, c.sample !== undefined ? `sample ${c.sample}` : undefined]
      .filter(Boolean)
      .join(", ");
    const message = c.message ? `: ${c.message.split("\n")[0]!.slice(0, 200)}` : "";
    return `  ${c.status.padEnd(8)} ${c.name}${where ? ` (${where})` : ""}${message}`;
  });
  if (cases.length > limit) lines.push(`  ... and ${cases.length - limit} more (--json has them all)`);
  return [`failing cases (${cases.length}):`, ...lines];
}
