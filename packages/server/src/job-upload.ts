/**
 * Receiving a job's upload (POST /v1/jobs/{id}/upload): the zip is unzipped straight into the job's run folder, a
 * skill job's files into `uploads/` (each named as its file input), an oracle run's deliverable into
 * `deliverable/`, and the job is queued. A zip that does not fit is refused with nothing written, before the job
 * is queued: for a skill job every file must be a file input of the skill (by name, at the top of the zip or under
 * `uploads/`), every required one must be there, and a field that declares `extensions` gets a file whose bytes are
 * of one of those types (a PNG is not a text file, whatever it is called).
 */
import { rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { escapePointerToken, SkillrigError, type SkillManifest, type Violation } from "@skillrig/core";
import { checkFileExtensions } from "@skillrig/skills";
import { checkUploadNames, inputFields } from "@skillrig/skills/protocol";
import type { FastifyRequest } from "fastify";
import type { JobRecord } from "./job-store.js";
import { uploadsOf } from "./run-job-record.js";
import type { ServerContext } from "./server-context.js";
import { uploadAllowance } from "./upload-quota.js";
import { extractZip, looksLikeZip, type ExtractedFile } from "./upload-zip.js";

const NOTHING_WRITTEN = "nothing of this upload was written; the job still waits for an upload";

export async function receiveUpload(context: ServerContext, job: JobRecord, request: FastifyRequest): Promise<ExtractedFile[]> {
  if (job.status !== "waiting_upload") {
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}, not waiting for an upload`, { field: "status" });
  }
  const zip = await zipBody(request);
  // What it extracts to is counted against the tenant's bytes per day as it is written, and given back if refused.
  const allowance = uploadAllowance(context, request.caller.tenant);
  const skill = job.kind === "skill" ? context.execution.skill(job.skill_id!) : undefined;
  const target = skill ? uploadsOf(job.run_dir) : join(job.run_dir, "deliverable");
  const files = await extractZip(zip, target, {
    maxFiles: context.settings.uploadMaxFiles,
    maxBytes: context.settings.uploadMaxExtractedBytes,
    maxPathDepth: context.settings.bounds.uploadMaxPathDepth,
    maxPathBytes: context.settings.bounds.uploadMaxPathBytes,
    count: (bytes: number) => allowance.take(bytes),
    ...(skill
      ? {
          accept: (paths: string[]) => placeSkillUpload(skill, paths),
          verify: (staging: string, extracted: ExtractedFile[]) => checkFileTypes(skill, staging, extracted),
        }
      : {}),
  }).catch(async (error: unknown) => {
    // Refused with nothing written: not even the run folder the extraction made to hold it.
    await rmdir(job.run_dir).catch(() => undefined);
    await allowance.release();
    throw error;
  });
  await allowance.settle();
  await context.queue.record(job.id, "log", {
    stream: "skillrig",
    line: `upload extracted: ${files.map((f) => f.path).join(", ") || "(empty)"}`,
  });
  if (!(await context.queue.uploaded(job.id))) {
    // Canceled (by the client or for waiting too long) while the zip was being extracted: drop what was written.
    await rm(target, { recursive: true, force: true });
    await allowance.release();
    throw new SkillrigError("job_state_conflict", `job "${job.id}" stopped waiting for an upload while this one was read`);
  }
  return files;
}

/** The zip: the raw body, or the one file of a multipart form. */
async function zipBody(request: FastifyRequest): Promise<Buffer> {
  let body: unknown = request.body;
  if (request.isMultipart()) {
    const part = await request.file();
    if (!part)
      throw new SkillrigError("upload_not_zip", "the multipart body holds no file part", {
        hint: "send the zip as the form's one file field",
      });
    body = await part.toBuffer();
  }
  if (!Buffer.isBuffer(body) || !looksLikeZip(body)) {
    throw new SkillrigError("upload_not_zip", "the upload is not a zip archive (it does not start with a zip signature)", {
      hint: "send a zip archive as the request body (Content-Type: application/zip)",
    });
  }
  return body;
}

const UPLOADS_FOLDER = "uploads/";

/**
 * A skill job's zip has one of two layouts: each file at the top, named as its field (`text_file`), or each under
 * `uploads/` (`uploads/text_file`), as a run folder holds them. A zip that mixes them is refused (which file was
 * meant is not clear). Then each file must be one of the skill's file inputs and every required one must be there.
 * Returns where each entry goes inside uploads/.
 */
function placeSkillUpload(skill: SkillManifest, paths: string[]): (entry: string) => string {
  const nested = paths.filter((path) => path.startsWith(UPLOADS_FOLDER));
  const top = paths.filter((path) => !path.startsWith(UPLOADS_FOLDER));
  if (nested.length > 0 && top.length > 0) {
    const violations: Violation[] = [...top.slice(0, 5), ...nested.slice(0, 5)].map((path) => ({
      pointer: `/${path.split("/").map(escapePointerToken).join("/")}`,
      file: path,
      rule: "upload_layout",
      message: `"${path}" is ${path.startsWith(UPLOADS_FOLDER) ? "under uploads/" : "at the top of the zip"}`,
    }));
    throw new SkillrigError(
      "input_invalid",
      `the zip mixes two layouts: ${top.length} file(s) at the top (${top.slice(0, 3).join(", ")}) and ${nested.length} under uploads/ (${nested.slice(0, 3).join(", ")}); put every file at the top, named as its field, or every file under uploads/`,
      { pointer: violations[0]?.pointer, field: "upload", violations, hint: NOTHING_WRITTEN },
    );
  }
  const place =
    nested.length > 0
      ? (entry: string) => (entry.startsWith(UPLOADS_FOLDER) ? entry.slice(UPLOADS_FOLDER.length) : entry)
      : (entry: string) => entry;
  const fields = paths.map(place);
  const problem = checkUploadNames(skill, fields);
  if (problem) {
    // Name the zip entry each misfit came from, as the client wrote it.
    const violations = problem.violations.map((v) => {
      const entry = paths[fields.indexOf(v.field ?? "")];
      return entry !== undefined && entry !== v.field ? { ...v, file: entry } : v;
    });
    throw new SkillrigError(problem.code, problem.message, {
      pointer: violations[0]?.pointer,
      field: violations[0]?.field,
      violations,
      hint: NOTHING_WRITTEN,
    });
  }
  return (entry) => (entry === "uploads/" && nested.length > 0 ? "" : place(entry));
}

/**
 * Each file of a field that declares `extensions` must be of one of those types by its bytes (the original file
 * name is not known inside a zip): a recognised binary format outside the list is refused, and a field that allows
 * only text types gets UTF-8 text. Every misfit is listed, each naming its field and its file in the zip.
 */
async function checkFileTypes(skill: SkillManifest, staging: string, files: ExtractedFile[]): Promise<void> {
  const extensionsOf = new Map(inputFields(skill).map((field) => [field.name, field.extensions]));
  const violations: Violation[] = [];
  for (const file of files) {
    const allowed = extensionsOf.get(file.path);
    if (!allowed) continue;
    const problem = await checkFileExtensions(join(staging, file.path), allowed);
    if (problem) {
      violations.push({
        pointer: `/input/${escapePointerToken(file.path)}`,
        field: file.path,
        file: file.entry ?? file.path,
        rule: "extensions",
        message: `file input "${file.path}" (zip entry "${file.entry ?? file.path}"): ${problem}`,
      });
    }
  }
  if (violations.length === 0) return;
  throw new SkillrigError("input_invalid", `the upload does not fit skill "${skill.id}": ${violations.map((v) => v.message).join("; ")}`, {
    pointer: violations[0]!.pointer,
    field: violations[0]!.field,
    file: violations[0]!.file,
    violations,
    hint: NOTHING_WRITTEN,
  });
}
