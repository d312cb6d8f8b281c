/**
 * What a folder holds on the disk: allocated bytes (blocks, so a sparse file counts what it really holds) and
 * entries. Read by the sandbox for a case's working folder and by engine-kit for an agent's writable folders.
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Allocated bytes and entries under `folder`; stops counting once past the caps. */
export function folderUsage(folder: string, capBytes: number, capEntries: number): { bytes: number; entries: number } {
  let bytes = 0;
  let entries = 0;
  const pending = [folder];
  while (pending.length > 0 && bytes <= capBytes && entries <= capEntries) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      // A folder the code closed to its owner (chmod 000) still counts: open it again (the runner owns it, or is root).
      if ((error as NodeJS.ErrnoException).code !== "EACCES") continue;
      try {
        chmodSync(dir, 0o700);
        names = readdirSync(dir);
      } catch {
        continue;
      }
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const stat = lstatSync(path);
        entries++;
        bytes += stat.blocks * 512;
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return { bytes, entries };
}
