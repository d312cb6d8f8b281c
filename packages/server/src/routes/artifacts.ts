/**
 * Artifacts of a finished skill job: the list, each file, and a zip of them all. Every path is resolved through
 * symlinks and must stay inside the job's run folder; anything else is refused as if it did not exist.
 */
import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { sep } from "node:path";
import archiver from "archiver";
import { SkillrigError, type CollectedArtifact, type JobResult } from "@skillrig/core";
import type { FastifyInstance } from "fastify";
import { bodyOf, jobIdParams, ref, responses } from "../api-schemas.js";
import { isTerminal, type JobRecord } from "../job-store.js";
import type { Caller } from "../auth.js";
import { forClient, requireJob } from "../job-view.js";
import type { ServerContext } from "../server-context.js";

/** The real path of `path` when it is a regular file inside `root` (after symlinks); undefined otherwise. */
export async function fileInside(root: string, path: string): Promise<string | undefined> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(path);
    if (!real.startsWith(realRoot + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function finishedSkillJob(
  context: ServerContext,
  id: string,
  caller: Caller,
): Promise<{ job: JobRecord; artifacts: CollectedArtifact[] }> {
  const job = await requireJob(context, id, caller);
  if (job.kind !== "skill")
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is an oracle run; it has a report, not artifacts`);
  if (!isTerminal(job.status))
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}; its artifacts are listed once it has finished`, {
      field: "status",
    });
  return { job, artifacts: (job.result as JobResult | null)?.artifacts ?? [] };
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function artifactRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Params: { id: string } }>(
    "/v1/jobs/:id/artifacts",
    {
      schema: {
        operationId: "listArtifacts",
        summary: "The artifacts of a finished skill job",
        tags: ["artifacts"],
        params: jobIdParams,
        response: {
          200: { description: "Each artifact with its download URL", ...ref("ArtifactList") },
          ...responses.errorResponses(401, 404, 409),
        },
      },
    },
    async (request) => {
      const { job, artifacts } = await finishedSkillJob(context, request.params.id, request.caller);
      return {
        artifacts: artifacts.map((a) => ({
          field: a.field,
          role: a.role,
          filename: a.filename,
          path: a.relativePath,
          bytes: a.bytes,
          url: `/v1/jobs/${job.id}/artifacts/${encodeURIComponent(a.field)}`,
        })),
      };
    },
  );

  app.get<{ Params: { id: string; field: string } }>(
    "/v1/jobs/:id/artifacts/:field",
    {
      schema: {
        operationId: "getArtifact",
        summary: "Download one artifact (by its output field)",
        tags: ["artifacts"],
        params: {
          type: "object",
          required: ["id", "field"],
          properties: { ...jobIdParams.properties, field: { type: "string", minLength: 1 } },
        },
        response: { 200: bodyOf("application/octet-stream", "The file"), ...responses.errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => {
      const { job, artifacts } = await finishedSkillJob(context, request.params.id, request.caller);
      const artifact = artifacts.find((a) => a.field === request.params.field);
      const real = artifact ? await fileInside(job.run_dir, artifact.path) : undefined;
      if (!artifact || !real) {
        throw new SkillrigError("job_not_found", `job "${job.id}" has no artifact "${request.params.field}"`, {
          field: "field",
          hint: `GET /v1/jobs/${job.id}/artifacts lists them`,
        });
      }
      return reply
        .header("content-type", "application/octet-stream")
        .header("content-disposition", contentDisposition(artifact.filename))
        .send(createReadStream(real));
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/jobs/:id/bundle",
    {
      schema: {
        operationId: "getJobBundle",
        summary: "Download all artifacts and result.json as one zip",
        tags: ["artifacts"],
        params: jobIdParams,
        response: {
          200: bodyOf("application/zip", "A zip: result.json and artifacts/<filename>"),
          ...responses.errorResponses(401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { job, artifacts } = await finishedSkillJob(context, request.params.id, request.caller);
      const files: Array<{ real: string; name: string }> = [];
      for (const artifact of artifacts) {
        const real = await fileInside(job.run_dir, artifact.path);
        if (real) files.push({ real, name: `artifacts/${artifact.filename}` });
      }
      const archive = archiver("zip", { zlib: { level: 6 } });
      const result = forClient(job, job.result ?? { job_id: job.id, status: job.status, error: job.error });
      archive.append(`${JSON.stringify(result, null, 2)}\n`, {
        name: "result.json",
      });
      for (const file of files) archive.file(file.real, { name: file.name });
      void archive.finalize();
      return reply
        .header("content-type", "application/zip")
        .header("content-disposition", contentDisposition(`${job.id}.zip`))
        .send(archive);
    },
  );
}
