/**
 * Receiving a job's upload (POST /v1/jobs/{id}/upload): the zip is unzipped straight into the job's run folder, a
 * skill job's files into `uploads/` (each named as its file input), an oracle run's deliverable into
 * `deliverable/`, and the job is queued. A zip that does not fit is refused with nothing written.
 */
import { rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { escapePointerToken, SkillrigError, type SkillManifest, type Violation } from "@skillrig/core";
import type { FastifyRequest } from "fastify";
import type { JobRecord } from "./job-store.js";
import { skillInputs } from "./request-check.js";
import { uploadsOf } from "./run-job-record.js";
import type { ServerContext } from "./server-context.js";
import { extractZip, looksLikeZip, type ExtractedFile } from "./upload-zip.js";

export async function receiveUpload(context: ServerContext, job: JobRecord, request: FastifyRequest): Promise<ExtractedFile[]> {
  if (job.status !== "waiting_upload") {
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}, not waiting for an upload`, { field: "status" });
  }
  const zip = await zipBody(request);
  const skill = job.kind === "skill" ? context.execution.skill(job.skill_id!) : undefined;
  const target = skill ? uploadsOf(job.run_dir) : join(job.run_dir, "deliverable");
  const files = await extractZip(zip, target, {
    maxFiles: context.settings.uploadMaxFiles,
    maxBytes: context.settings.uploadMaxExtractedBytes,
    ...(skill ? { accept: (paths: string[]) => checkUploadNames(skill, paths) } : {}),
  }).catch(async (error: unknown) => {
    // Refused with nothing written: not even the run folder the extraction made to hold it.
    await rmdir(job.run_dir).catch(() => undefined);
    throw error;
  });
  await context.queue.record(job.id, "log", {
    stream: "skillrig",
    line: `upload extracted: ${files.map((f) => f.path).join(", ") || "(empty)"}`,
  });
  if (!(await context.queue.uploaded(job.id))) {
    // Canceled (by the client or for waiting too long) while the zip was being extracted: drop what was written.
    await rm(target, { recursive: true, force: true });
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

/** Each file of a skill job's zip is one of its file inputs, at the top of the zip, and every required one is there. */
function checkUploadNames(skill: SkillManifest, paths: string[]): void {
  const inputs = skillInputs(skill);
  const violations: Violation[] = [];
  for (const path of paths) {
    if (!inputs.file.includes(path)) {
      violations.push({
        pointer: `/${escapePointerToken(path)}`,
        field: path,
        message: `"${path}" is not a file input of skill "${skill.id}" (file inputs: ${inputs.file.join(", ") || "none"}); each file is named exactly as its field, at the top of the zip`,
      });
    }
  }
  for (const field of inputs.requiredFiles) {
    if (!paths.includes(field)) {
      violations.push({
        pointer: `/input/${escapePointerToken(field)}`,
        field,
        rule: "input_missing_file",
        message: `the required file input "${field}" is not in the zip`,
      });
    }
  }
  if (violations.length === 0) return;
  const missing = violations.some((v) => v.rule === "input_missing_file");
  throw new SkillrigError(
    missing ? "input_missing_file" : "input_invalid",
    `the upload does not fit skill "${skill.id}": ${violations.map((v) => v.message).join("; ")}`,
    {
      pointer: violations[0]?.pointer,
      field: violations[0]?.field,
      violations,
      hint: "nothing of this upload was written; the job still waits for an upload",
    },
  );
}
