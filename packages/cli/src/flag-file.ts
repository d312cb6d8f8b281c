/**
 * A file named by a command-line flag (`--judge-prompt FILE`, `--prompt-file FILE`): checked before anything runs,
 * so a missing one is a usage error (exit 2) that says what was looked for and where, in words, not a raw ENOENT.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { SkillrigError } from "@skillrig/core";

/** The file's absolute path, once it is known to be a readable file. */
export function readableFlagFile(flag: string, given: string, cwd: string): string {
  const file = resolve(cwd, given);
  const refuse = (why: string, hint?: string): never => {
    throw new SkillrigError("usage", `${flag} ${given}: ${why}`, { field: flag, file, ...(hint ? { hint } : {}) });
  };
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      return refuse(`no such file (looked for ${file})`, `give the path of an existing file, relative to ${cwd}`);
    return refuse(`cannot be read (${code ?? (error as Error).message})`);
  }
  if (!isFile) return refuse(`${file} is a folder, not a file`);
  try {
    readFileSync(file, { flag: "r" });
  } catch (error) {
    return refuse(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return file;
}
