/**
 * After the engine ran: find each artifact the output schema declares, copy it into the run folder's
 * `artifacts/`, and validate the final output against the output schema.
 *
 * Where an artifact is looked for, in order: the path the output's field gives (absolute, or relative to the
 * workspace; it must lie inside the workspace, so an output cannot make skillrig copy /etc/passwd), then
 * `<workspace>/<x-filename>`, then a file of that name anywhere in the workspace. When the file is found by name
 * but the output's field was missing or wrong, the field is set to the found path and the job gets a warning.
 */
import { copyFileSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { escapePointerToken, type ArtifactCollection, type CollectedArtifact, type JobWork } from "@skillrig/core";
import { compiledSchema } from "./compiled-schemas.js";
import { isInside } from "./paths.js";
import { ARTIFACT_SEARCH_SKIPPED } from "./workspace-folders.js";

const SKIP_DIRS = new Set(ARTIFACT_SEARCH_SKIPPED);

function realFile(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

function findByName(root: string, name: string, depth = 6): string | undefined {
  if (depth < 0) return undefined;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const e of entries) if (e.isFile() && e.name === name) return join(root, e.name);
  for (const e of entries) {
    if (!e.isDirectory() || SKIP_DIRS.has(e.name)) continue;
    const hit = findByName(join(root, e.name), name, depth - 1);
    if (hit) return hit;
  }
  return undefined;
}

export function collectJobArtifacts(collection: ArtifactCollection, work: JobWork): ArtifactCollection {
  const { skill, run } = work;
  const problems = [...collection.problems];
  const artifacts: CollectedArtifact[] = [...collection.artifacts];
  if (collection.output === undefined) {
    problems.push({
      code: "result_missing",
      message:
        skill.plain === true
          ? `the engine gave no final answer for skill "${skill.id}"`
          : `the engine gave no final JSON result for skill "${skill.id}" (expected one JSON object matching its output schema)`,
    });
    return { ...collection, problems, artifacts };
  }
  // A plain Agent Skill's output is the agent's final answer text; it declares no artifacts and no schema.
  if (skill.plain === true) return { ...collection, problems, artifacts };
  const output = collection.output;
  const outputObject =
    typeof output === "object" && output !== null && !Array.isArray(output) ? (output as Record<string, unknown>) : undefined;
  const workspace = realpathSync(run.workspace);
  const missingFields = new Set<string>();

  for (const spec of skill.artifacts) {
    const at = `/${escapePointerToken(spec.field)}`;
    const given = outputObject?.[spec.field];
    let found: string | undefined;
    let note: string | undefined;
    if (typeof given === "string" && given.trim() !== "") {
      const candidate = realFile(isAbsolute(given) ? given : resolve(workspace, given));
      if (candidate && isInside(workspace, candidate)) found = candidate;
      else note = candidate ? `the output's path ${given} lies outside the run workspace` : `the output's path ${given} does not exist`;
    }
    if (!found) {
      const byName = realFile(join(workspace, spec.filename)) ?? realFile(findByName(workspace, basename(spec.filename)) ?? "\0");
      if (byName && isInside(workspace, byName)) {
        found = byName;
        if (outputObject) {
          outputObject[spec.field] = byName;
          work.warn(
            `artifact "${spec.field}": ${note ?? "the output did not give its path"}; collected ${relative(workspace, byName)} from the workspace and set ${at} to it`,
          );
        }
      }
    }
    if (!found) {
      if (spec.required) {
        missingFields.add(at);
        problems.push({
          code: "artifact_missing",
          pointer: at,
          message: `required artifact "${spec.field}" (role ${spec.role}) was not written: ${note ? `${note}, and ` : ""}no file ${spec.filename} in the workspace ${run.workspace}`,
        });
      } else if (note) {
        work.warn(`optional artifact "${spec.field}": ${note}`);
      }
      continue;
    }
    const target = join(run.artifacts, spec.filename);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(found, target);
    artifacts.push({
      field: spec.field,
      role: spec.role,
      filename: spec.filename,
      path: target,
      relativePath: relative(run.root, target),
      bytes: statSync(target).size,
    });
  }

  if (skill.schemas.output) {
    for (const v of compiledSchema(skill.schemas.output.schema).validate(output)) {
      if (v.rule === "required" && missingFields.has(v.pointer ?? "")) continue; // artifact_missing says more
      problems.push({ code: "schema_violation", pointer: v.pointer, message: `output ${v.pointer || "(root)"} ${v.message}` });
    }
  }
  return { output, artifacts, problems };
}
