/**
 * A suite none of whose tasks has a deliverable is a mistake on the command line (a task folder given with
 * `--deliverable x.py`, a wrong folder), not a run: it is refused as a usage error (exit 2) before anything is
 * graded or recorded, with the form the person probably meant.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { SkillrigError } from "@skillrig/core";

interface Entry {
  loaded: { displayPath: string; task: { task_id: string } };
  problem?: string;
}

/** Throws when no entry can be graded; returns otherwise. */
export function refuseUngradableSuite(entries: readonly Entry[], deliverable: string | undefined, cwd: string): void {
  if (entries.length === 0 || entries.some((e) => e.problem === undefined)) return;
  const isFile = deliverable !== undefined && isRegularFile(resolve(cwd, deliverable));
  const first = entries[0]!;
  const hint = isFile
    ? `for one task, name its task file: skillrig test ${first.loaded.displayPath} --deliverable ${deliverable}; a suite's --deliverable is a folder with <task_id>.py or <task_id>/ per task`
    : "a suite's --deliverable is a folder with <task_id>.py or <task_id>/ per task; or give --samples <file.jsonl>";
  throw new SkillrigError(
    "usage",
    isFile
      ? `--deliverable ${deliverable} is a file, and the tasks given are a suite (a folder or several task files): nothing to grade`
      : "no task of the suite has a deliverable: nothing to grade",
    {
      field: "--deliverable",
      violations: entries.map((e) => ({ field: e.loaded.task.task_id, message: e.problem! })),
      hint,
    },
  );
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
