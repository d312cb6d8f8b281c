/** /v1/openapi.json is generated from the route schemas and is a valid OpenAPI document. */
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { api, makeProject, startInProcess } from "./support/server-harness.js";

describe("the OpenAPI document", () => {
  let server: RunningServer;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them
  let doc: any;
  beforeAll(async () => {
    server = await startInProcess(makeProject());
    const res = await api(server.url).json("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("validates as OpenAPI 3", async () => {
    expect(doc.openapi).toBe("3.0.3");
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it("names every operation once (operationId) and tags it, for generated clients", () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string; tags?: string[] }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, ...op })),
    );
    const ids = Object.fromEntries(operations.map((op) => [op.at, op.operationId]));
    expect(ids).toEqual({
      "GET /healthz": "health",
      "GET /v1/engines": "listEngines",
      "GET /v1/jobs": "listJobs",
      "POST /v1/jobs": "createJob",
      "GET /v1/jobs/{id}": "getJob",
      "GET /v1/jobs/{id}/artifacts": "listArtifacts",
      "GET /v1/jobs/{id}/artifacts/{field}": "getArtifact",
      "GET /v1/jobs/{id}/bundle": "getJobBundle",
      "POST /v1/jobs/{id}/cancel": "cancelJob",
      "GET /v1/jobs/{id}/events": "streamJobEvents",
      "GET /v1/jobs/{id}/result": "getJobResult",
      "POST /v1/jobs/{id}/upload": "uploadJobFiles",
      "POST /v1/oracle/runs": "createOracleRun",
      "GET /v1/skills": "listSkills",
      "GET /v1/skills/{id}": "getSkill",
      "POST /v1/solve/attempts": "createSolveAttempt",
      "GET /v1/tenants/{tenant}/usage": "getTenantUsage",
    });
    expect(new Set(Object.values(ids)).size).toBe(operations.length);
    for (const op of operations) expect(op.tags?.length, op.at).toBeGreaterThan(0);
  });

  it("shares one named schema per shape (components.schemas) and points every route at them", () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        "Job",
        "JobList",
        "JobResult",
        "TaskReport",
        "SuiteReport",
        "SolveReport",
        "AttemptResult",
        "Error",
        "ErrorResponse",
        "Skill",
        "SkillDetail",
        "CreateJobRequest",
        "UploadReceipt",
      ]),
    );
    // No anonymous def-N schemas: every shared one is named for what it is.
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith("def-"))).toEqual([]);
    const json = (response: { content: Record<string, { schema: unknown }> }) => response.content["application/json"]!.schema;
    expect(json(doc.paths["/v1/jobs/{id}"].get.responses["200"])).toEqual({ $ref: "#/components/schemas/Job" });
    expect(json(doc.paths["/v1/jobs"].get.responses["200"])).toEqual({ $ref: "#/components/schemas/JobList" });
    expect(json(doc.paths["/v1/jobs/{id}/result"].get.responses["200"])).toMatchObject({
      oneOf: [
        { $ref: "#/components/schemas/JobResult" },
        { $ref: "#/components/schemas/TaskReport" },
        { $ref: "#/components/schemas/AttemptResult" },
      ],
    });
    // Every error answer of every route is the one ErrorResponse body.
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, never> }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) >= 400)
            expect(json(response), `${method} ${path} ${status}`).toEqual({ $ref: "#/components/schemas/ErrorResponse" });
        }
      }
    }
    expect(doc.components.schemas.Job.properties.summary).toMatchObject({
      nullable: true,
      required: ["total", "passed", "failed", "errored", "invalid"],
    });
  });

  it("declares the job listing's filters and cursor", () => {
    const list = doc.paths["/v1/jobs"].get;
    expect(Object.fromEntries(list.parameters.map((p: { name: string; in: string }) => [p.name, p.in]))).toEqual({
      status: "query",
      kind: "query",
      skill: "query",
      limit: "query",
      cursor: "query",
    });
    expect(doc.components.schemas.JobList.required).toEqual(["jobs", "next_cursor"]);
  });

  it("describes every route with the schemas the server validates against", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the dereferenced document, checked below
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/healthz",
      "/v1/engines",
      "/v1/jobs",
      "/v1/jobs/{id}",
      "/v1/jobs/{id}/artifacts",
      "/v1/jobs/{id}/artifacts/{field}",
      "/v1/jobs/{id}/bundle",
      "/v1/jobs/{id}/cancel",
      "/v1/jobs/{id}/events",
      "/v1/jobs/{id}/result",
      "/v1/jobs/{id}/upload",
      "/v1/oracle/runs",
      "/v1/skills",
      "/v1/skills/{id}",
      "/v1/solve/attempts",
      "/v1/tenants/{tenant}/usage",
    ]);
    const attempt = resolved.paths["/v1/solve/attempts"].post.requestBody.content["application/json"].schema;
    expect(attempt.required).toEqual(["task", "engine", "attempt"]);
    expect(attempt.additionalProperties).toBe(false);
    expect(attempt.properties.engine.additionalProperties).toBe(false);
    const create = resolved.paths["/v1/jobs"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["skill_id", "engine"]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "404", "422", "429"]);
    // Every /v1 route documents the loopback Host/Origin refusal.
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toContain("403");
      }
    }
    expect(create.responses["422"].content["application/json"].schema.properties.error.properties.violations.type).toBe("array");
    const upload = doc.paths["/v1/jobs/{id}/upload"].post;
    expect(upload.requestBody.content["application/zip"].schema).toEqual({ type: "string", format: "binary" });
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(["202", "400", "409", "413", "415", "422"]));
    expect(doc.paths["/v1/jobs/{id}/events"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["last-event-id", "last_event_id", "id"]),
    );
  });
});
