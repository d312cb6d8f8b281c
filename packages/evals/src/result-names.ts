/**
 * The names of the files skillrig writes as an iteration's results (grading.json, timing.json, ...) belong to
 * skillrig alone inside the iteration folder. The agent can write files of those names (in its workspace, its HOME,
 * its scratch folder), and its workspace is kept twice in the iteration: as a run's outputs/ and in the job's folder
 * under jobs/. A tool that globs the iteration for `**\/grading.json` (skill-creator's scripts, a dashboard) would
 * find the agent's copies beside the real ones. So wherever the agent's files are kept in the iteration, such a name
 * is stored with `.from-agent` appended (and a name that already ends so gets it again, so the mapping can be
 * undone exactly). Graders see the agent's own names: file assertions map their path, and the copies a checker, a
 * sealed run or the judge gets are made with the names restored.
 */
import { chmodSync, lstatSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The files an iteration writes as its results, at any depth. */
export const RESULT_FILE_NAMES: ReadonlySet<string> = new Set([
  "grading.json",
  "timing.json",
  "benchmark.json",
  "answer.json",
  "iteration.json",
  "triggers.json",
]);

export const AGENT_FILE_SUFFIX = ".from-agent";

/** The name an agent's file is kept under in the iteration folder. */
export function storedName(name: string): string {
  return RESULT_FILE_NAMES.has(name) || name.endsWith(AGENT_FILE_SUFFIX) ? `${name}${AGENT_FILE_SUFFIX}` : name;
}

/** The agent's own name of a stored file (the inverse of storedName). */
export function agentName(stored: string): string {
  return stored.endsWith(AGENT_FILE_SUFFIX) ? stored.slice(0, -AGENT_FILE_SUFFIX.length) : stored;
}

/** A path relative to outputs/ as the agent wrote it, mapped to where it is kept. */
export function storedPath(path: string): string {
  return path
    .split("/")
    .map((part) => (part === "" || part === "." || part === ".." ? part : storedName(part)))
    .join("/");
}

function renameEntry(dir: string, name: string): void {
  const from = join(dir, name);
  // In a job's folder nothing maps names back, so a plain suffix is enough (and a second sweep changes nothing).
  const to = join(dir, `${name}${AGENT_FILE_SUFFIX}`);
  try {
    renameSync(from, to);
  } catch {
    // A folder the agent made unwritable is the runner's to open again (it is no longer the agent's: its job ended);
    // what still cannot be renamed is removed, never left where a reader finds it.
    try {
      chmodSync(dir, 0o700);
      rmSync(to, { recursive: true, force: true });
      renameSync(from, to);
    } catch {
      rmSync(from, { recursive: true, force: true });
    }
  }
}

/**
 * Renames, in place, every entry under `root` named as a result file (`grading.json` -> `grading.json.from-agent`,
 * replacing an entry of that name). Links are renamed, never followed. Run on a job's folder once its process tree
 * has ended; running it again changes nothing.
 */
export function sealResultNames(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    try {
      chmodSync(root, 0o700);
      names = readdirSync(root);
    } catch {
      return;
    }
  }
  // Deepest first is not needed: a renamed folder keeps its contents, which are walked under the new name.
  for (const name of names) {
    let current = name;
    if (RESULT_FILE_NAMES.has(name)) {
      renameEntry(root, name);
      current = `${name}${AGENT_FILE_SUFFIX}`;
    }
    const path = join(root, current);
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDir) sealResultNames(path);
  }
}
