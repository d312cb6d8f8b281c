/**
 * The files a local job names (`skillrig run --file field=path`, `JobRequest.files`) copied into the run folder's
 * uploads/. A jobs server unzips uploads straight into that folder instead, and names no files here.
 * A plain Agent Skill's files are paths in the workspace: uploads/ keeps them by that path (the record of what the
 * job was given), and each is copied to the same path in the workspace before the engine starts.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { escapePointerToken, type JobRequest, type RunFolder, type SkillManifest, type Violation } from "@skillrig/core";
import { isSafeRelativePath } from "./paths.js";
import { MISSING_FILE_RULE } from "./resolve-input.js";
import { fileInputNames, workspaceFileKeyProblem } from "./protocol.js";

/** Copies `request.files` into uploads/; returns the problems instead of throwing so all are listed. */
export function copyUploads(
  request: JobRequest,
  skill: SkillManifest,
  run: Pick<RunFolder, "uploads" | "workspace">,
  cwd: string,
): Violation[] {
  if (skill.plain === true) return copyWorkspaceFiles(request, run, cwd);
  const { uploads } = run;
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

function copyWorkspaceFiles(request: JobRequest, run: Pick<RunFolder, "uploads" | "workspace">, cwd: string): Violation[] {
  const violations: Violation[] = [];
  for (const [key, hostPath] of Object.entries(request.files ?? {})) {
    const at = `/files/${escapePointerToken(key)}`;
    // checkJobRequest refused these already; repeated so no caller can copy outside the workspace.
    const problem = workspaceFileKeyProblem(key);
    if (problem) {
      violations.push({ pointer: at, field: key, message: problem });
      continue;
    }
    const source = resolve(cwd, hostPath);
    if (!existsSync(source) || !statSync(source).isFile()) {
      violations.push({
        pointer: at,
        field: key,
        file: hostPath,
        rule: MISSING_FILE_RULE,
        message: `the file for "${key}", ${hostPath}, does not exist or is not a file`,
      });
      continue;
    }
    const target = join(run.uploads, key);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source, target);
  }
  if (violations.length === 0) copyFilesInto(run.uploads, run.workspace);
  return violations;
}

/** Copies the regular files of `from` (recursively) to the same relative paths under `to`; links are not followed. */
function copyFilesInto(from: string, to: string): void {
  if (!existsSync(from)) return;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith(".uploads-staging-")) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      mkdirSync(target, { recursive: true });
      copyFilesInto(source, target);
    } else if (entry.isFile()) {
      copyFileSync(source, target);
    }
  }
}
