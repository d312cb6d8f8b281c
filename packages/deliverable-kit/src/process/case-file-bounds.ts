/**
 * Bounds on a case's `files` keys (issue 38): a key 2,100 folders deep ran 194 s before `output_limit`, and a
 * 300-character name was an `error` at run time. Both are impossible tasks, said when the task is read: each key's
 * depth, each path component's length, the whole path's length and the number of files are checked before any case
 * runs, and a key past a bound makes its case `invalid_test_format` with the key's JSON pointer.
 *
 * The bounds are `oracle.case_files` (a section of @skillrig/oracle, read through this narrow view for the same
 * reason as case-limit-defaults.ts). Lengths are UTF-8 bytes, as the kernel counts them.
 */
import type { SkillrigConfig } from "@skillrig/core";

export interface CaseFileBounds {
  /** Folders plus the file: `a/b/c.txt` is 3. */
  max_depth: number;
  /** One path component (a folder or file name); the kernel's NAME_MAX is 255. */
  max_name_bytes: number;
  /** The whole relative path. */
  max_path_bytes: number;
  /** Keys in one `files` map. */
  max_files: number;
}

/** Defaults a shared server can live with (docs/sandbox.md, "Bounds on untrusted producers"). */
export const CASE_FILE_BOUNDS: Readonly<CaseFileBounds> = Object.freeze({
  max_depth: 32,
  max_name_bytes: 255,
  max_path_bytes: 1024,
  max_files: 1000,
});

interface CaseFileSections {
  oracle?: { case_files?: Partial<CaseFileBounds> };
}

export function caseFileBounds(config: SkillrigConfig | undefined): CaseFileBounds {
  const configured = (config as (SkillrigConfig & CaseFileSections) | undefined)?.oracle?.case_files ?? {};
  return { ...CASE_FILE_BOUNDS, ...configured };
}

/** Why `key` (already a safe relative path) breaks a bound, or undefined. */
export function fileKeyBoundReason(key: string, bounds: CaseFileBounds): string | undefined {
  const components = key.split("/");
  if (components.length > bounds.max_depth) {
    return `is ${components.length} path components deep, past the limit of ${bounds.max_depth} (oracle.case_files.max_depth)`;
  }
  for (const component of components) {
    const length = Buffer.byteLength(component, "utf8");
    if (length > bounds.max_name_bytes) {
      return `has a ${length}-byte name ${JSON.stringify(`${component.slice(0, 40)}...`)}, past the ${bounds.max_name_bytes}-byte limit of one file or folder name (oracle.case_files.max_name_bytes)`;
    }
  }
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes > bounds.max_path_bytes) {
    return `is ${bytes} bytes long, past the ${bounds.max_path_bytes}-byte path limit (oracle.case_files.max_path_bytes)`;
  }
  return undefined;
}
