/**
 * The files a local job names (`skillrig run --file field=path`, `JobRequest.files`) copied into the run folder's
 * uploads/. A jobs server unzips uploads straight into that folder instead, and names no files here.
 */
import { copyFileSync, existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { escapePointerToken, type JobRequest, type SkillManifest, type Violation } from "@skillrig/core";
import { isSafeRelativePath } from "./paths.js";
import { MISSING_FILE_RULE } from "./resolve-input.js";
import { fileInputNames } from "./protocol.js";

/** Copies `request.files` into uploads/; returns the problems instead of throwing so all are listed. */
export function copyUploads(request: JobRequest, skill: SkillManifest, uploads: string, cwd: string): Violation[] {
  const violations: Violation[] = [];
  const fileFields = new Set(fileInputNames(skill));
  for (const [field, hostPath] of Object.entries(request.files ?? {})) {
    const at = `/files/${escapePointerToken(field)}`;
    if (!isSafeRelativePath(field) || field.includes("/") || field.includes("\\")) {
      violations.push({ pointer: at, field, message: `"${field}" is not a valid field name for an upload` });
      continue;
    }
    if (!fileFields.has(field)) {
      violations.push({
        pointer: at,
        field,
        message: `"${field}" is not a file input of skill "${skill.id}"; file inputs: ${[...fileFields].join(", ") || "none"}`,
      });
      continue;
    }
    const source = resolve(cwd, hostPath);
    if (!existsSync(source) || !statSync(source).isFile()) {
      violations.push({
        pointer: at,
        field,
        file: hostPath,
        rule: MISSING_FILE_RULE,
        message: `the file for "${field}", ${hostPath}, does not exist or is not a file`,
      });
      continue;
    }
    copyFileSync(source, resolve(uploads, field));
  }
  return violations;
}
