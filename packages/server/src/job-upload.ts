/**
 * Receiving a job's upload (POST /v1/jobs/{id}/upload): the zip is unzipped straight into the job's run folder, a
 * skill job's files into `uploads/` (each named as its file input), an oracle run's deliverable into
 * `deliverable/`, and the job is queued. A zip that does not fit is refused with nothing written.
 */
import { rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { SkillrigError, type SkillManifest } from "@skillrig/core";
import { checkUploadNames } from "@skillrig/skills/protocol";
import type { FastifyRequest } from "fastify";
import type { JobRecord } from "./job-store.js";
import { uploadsOf } from "./run-job-record.js";
import type { ServerContext } from "./server-context.js";
import { reserveUploadBytes } from "./upload-quota.js";
import { extractZip, looksLikeZip, type ExtractedFile } from "./upload-zip.js";

export async function receiveUpload(context: ServerContext, job: JobRecord, request: FastifyRequest): Promise<ExtractedFile[]> {
  if (job.status !== "waiting_upload") {
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}, not waiting for an upload`, { field: "status" });
  }
  const zip = await zipBody(request);
  // The zip is counted against the tenant's bytes per day before anything is written, and given back if refused.
  const reservation = await reserveUploadBytes(context, request.caller.tenant, zip.length);
  const skill = job.kind === "skill" ? context.execution.skill(job.skill_id!) : undefined;
  const target = skill ? uploadsOf(job.run_dir) : join(job.run_dir, "deliverable");
  const files = await extractZip(zip, target, {
    maxFiles: context.settings.uploadMaxFiles,
    maxBytes: context.settings.uploadMaxExtractedBytes,
    ...(skill ? { accept: (paths: string[]) => checkUploadFits(skill, paths) } : {}),
  }).catch(async (error: unknown) => {
    // Refused with nothing written: not even the run folder the extraction made to hold it.
    await rmdir(job.run_dir).catch(() => undefined);
    await reservation.release();
    throw error;
  });
  await context.queue.record(job.id, "log", {
    stream: "skillrig",
    line: `upload extracted: ${files.map((f) => f.path).join(", ") || "(empty)"}`,
  });
  if (!(await context.queue.uploaded(job.id))) {
    // Canceled (by the client or for waiting too long) while the zip was being extracted: drop what was written.
    await rm(target, { recursive: true, force: true });
    await reservation.release();
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
function checkUploadFits(skill: SkillManifest, paths: string[]): void {
  const problem = checkUploadNames(skill, paths);
  if (!problem) return;
  throw new SkillrigError(problem.code, problem.message, {
    pointer: problem.violations[0]?.pointer,
    field: problem.violations[0]?.field,
    violations: problem.violations,
    hint: "nothing of this upload was written; the job still waits for an upload",
  });
}
