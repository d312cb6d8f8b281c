/**
 * Which sample of one run is which of the other. By content when both reports carry it for every sample of a task
 * (a suite's `deliverable_sha256`, a solve attempt's whole source): the same program is the same sample wherever it
 * sits in the samples file, and a program on one side only is new or gone. Reports written before samples carried
 * their content are matched by position (sample N with sample N), and say so (`matched_by: "position"`).
 */
import type { Normalized, NormalSample } from "./compare-read.js";

export interface SamplePair {
  task_id: string;
  before: NormalSample | null;
  after: NormalSample | null;
  /** `content`: the same deliverable; `position`: the same place (reports without content); `none`: one side only. */
  matched_by: "content" | "position" | "none";
}

/** Pairs equal keys in order, same labels first (an unchanged file keeps its number when it can). */
function pairBy(
  task: string,
  before: NormalSample[],
  after: NormalSample[],
  key: (s: NormalSample) => string,
  by: SamplePair["matched_by"],
) {
  const pairs: SamplePair[] = [];
  const left = [...before];
  const take = (s: NormalSample, sameLabel: boolean) => {
    const i = left.findIndex((b) => key(b) === key(s) && (!sameLabel || b.label === s.label));
    return i < 0 ? undefined : left.splice(i, 1)[0];
  };
  const matched = new Map<NormalSample, NormalSample>();
  for (const s of after) {
    const b = take(s, true);
    if (b) matched.set(s, b);
  }
  for (const s of after) {
    if (matched.has(s)) continue;
    const b = take(s, false);
    if (b) matched.set(s, b);
  }
  for (const s of after) {
    const b = matched.get(s);
    pairs.push({ task_id: task, before: b ?? null, after: s, matched_by: b ? by : "none" });
  }
  for (const b of left) pairs.push({ task_id: task, before: b, after: null, matched_by: "none" });
  return pairs;
}

/** Every sample of every task of either run, paired where it can be (tasks in the after run's order). */
export function matchSamples(before: Normalized, after: Normalized): SamplePair[] {
  const tasks = [...after.tasks, ...before.tasks.filter((t) => !after.tasks.includes(t))];
  return tasks.flatMap((task) => {
    const b = before.samples.filter((s) => s.task_id === task);
    const a = after.samples.filter((s) => s.task_id === task);
    const byContent = [...a, ...b].every((s) => s.content !== null) && a.length + b.length > 0;
    return byContent ? pairBy(task, b, a, (s) => s.content!, "content") : pairBy(task, b, a, (s) => s.label ?? "", "position");
  });
}
