/**
 * A client of the jobs server written only against the generated types (fixtures/api-client/skillrig-api.ts) and
 * openapi-fetch, as a team's own client would be: every call is named by its operation's path and method, every
 * body and answer typed from the OpenAPI document. generated-client.test.ts typechecks this file against a fresh
 * generation (so a change to the document that breaks a client breaks the test) and drives a server with it.
 *
 * Only web-platform types here (fetch, Blob): the file is compiled on its own, without Node's types.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "../fixtures/api-client/skillrig-api.js";

export type Job = components["schemas"]["Job"];
export type JobResult = components["schemas"]["JobResult"];
export type TaskReport = components["schemas"]["TaskReport"];
export type ApiError = components["schemas"]["Error"];
export type SkillrigClient = ReturnType<typeof createClient<paths>>;

export function connect(baseUrl: string, token?: string): SkillrigClient {
  return createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/** The server's error as an exception naming its code and message. */
function refused(what: string, error: { error: ApiError } | undefined, status: number): Error {
  return new Error(`${what}: ${status} ${error ? `${error.error.code}: ${error.error.message}` : "(no error body)"}`);
}

/** Sends a zip as the job's upload (the raw body, application/zip). */
async function upload(client: SkillrigClient, id: string, zip: Blob): Promise<void> {
  const { error, response } = await client.POST("/v1/jobs/{id}/upload", {
    params: { path: { id } },
    body: zip,
    headers: { "content-type": "application/zip" },
    bodySerializer: (body) => body,
  });
  if (error) throw refused("uploadJobFiles", error, response.status);
}

/** Reads the job's event stream to its end (it ends after the job's last status) and returns its `event:` names. */
async function follow(client: SkillrigClient, id: string): Promise<string[]> {
  const { data, error, response } = await client.GET("/v1/jobs/{id}/events", { params: { path: { id } }, parseAs: "text" });
  if (error !== undefined || data === undefined) throw refused("streamJobEvents", error, response.status);
  return [...data.matchAll(/^event: (.+)$/gm)].map((m) => m[1]!);
}

async function getJob(client: SkillrigClient, id: string): Promise<Job> {
  const { data, error, response } = await client.GET("/v1/jobs/{id}", { params: { path: { id } } });
  if (!data) throw refused("getJob", error, response.status);
  return data;
}

async function getResult(client: SkillrigClient, id: string) {
  const { data, error, response } = await client.GET("/v1/jobs/{id}/result", { params: { path: { id } } });
  if (!data) throw refused("getJobResult", error, response.status);
  return data;
}

export interface SkillJobRun {
  job: Job;
  events: string[];
  result: JobResult;
  artifacts: Array<{ field: string; text: string }>;
}

/** createJob, uploadJobFiles, streamJobEvents, getJob, getJobResult, listArtifacts, getArtifact. */
export async function runSkillJob(
  client: SkillrigClient,
  request: components["schemas"]["CreateJobRequest"],
  zip: Blob,
): Promise<SkillJobRun> {
  const created = await client.POST("/v1/jobs", { body: request });
  if (!created.data) throw refused("createJob", created.error, created.response.status);
  const id = created.data.id;
  await upload(client, id, zip);
  const events = await follow(client, id);
  const job = await getJob(client, id);
  const result = await getResult(client, id);
  if (!("job_id" in result) || !("artifacts" in result)) throw new Error(`job ${id}: the result is no JobResult`);
  const listed = await client.GET("/v1/jobs/{id}/artifacts", { params: { path: { id } } });
  if (!listed.data) throw refused("listArtifacts", listed.error, listed.response.status);
  const artifacts: SkillJobRun["artifacts"] = [];
  for (const artifact of listed.data.artifacts) {
    const file = await client.GET("/v1/jobs/{id}/artifacts/{field}", {
      params: { path: { id, field: artifact.field } },
      parseAs: "blob",
    });
    if (!file.data) throw refused("getArtifact", file.error, file.response.status);
    artifacts.push({ field: artifact.field, text: await file.data.text() });
  }
  return { job, events, result: result as JobResult, artifacts };
}

export interface OracleRun {
  job: Job;
  events: string[];
  report: TaskReport;
}

/** createOracleRun, uploadJobFiles (the deliverable), streamJobEvents, getJob (its summary), getJobResult. */
export async function runOracle(client: SkillrigClient, task: Record<string, unknown>, deliverable: Blob): Promise<OracleRun> {
  const created = await client.POST("/v1/oracle/runs", { body: { task } });
  if (!created.data) throw refused("createOracleRun", created.error, created.response.status);
  const id = created.data.id;
  await upload(client, id, deliverable);
  const events = await follow(client, id);
  const job = await getJob(client, id);
  const report = await getResult(client, id);
  return { job, events, report: report as TaskReport };
}

/** A refused request's error body, typed: what a client shows its user. */
export async function refusalOf(client: SkillrigClient, request: components["schemas"]["CreateJobRequest"]): Promise<ApiError> {
  const { error } = await client.POST("/v1/jobs", { body: request });
  if (!error) throw new Error("the request was accepted");
  return error.error;
}
