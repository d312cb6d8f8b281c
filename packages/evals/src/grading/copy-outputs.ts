/**
 * A fresh copy of a run's outputs/ for one check (a script's working folder, the judge's workspace): regular files
 * and folders only, links and special files left out, nothing followed, so a check can change its copy without
 * touching the run's record, and one check cannot leave anything for the next.
 */
import { copyFile, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Copies `from` into `to` (created); returns the relative paths of the files copied, in a stable order. */
export async function copyOutputs(from: string, to: string): Promise<string[]> {
  const copied: string[] = [];
  await mkdir(to, { recursive: true });
  const visit = async (relative: string): Promise<void> => {
    const source = join(from, relative);
    let entries: string[];
    try {
      entries = (await readdir(source)).sort();
    } catch {
      return; // no outputs folder: nothing to copy
    }
    for (const name of entries) {
      const rel = relative ? `${relative}/${name}` : name;
      const stats = await lstat(join(from, rel));
      if (stats.isDirectory()) {
        await mkdir(join(to, rel));
        await visit(rel);
      } else if (stats.isFile()) {
        await copyFile(join(from, rel), join(to, rel));
        copied.push(rel);
      }
    }
  };
  await visit("");
  return copied;
}
