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

  it("describes every route with the schemas the server validates against", () => {
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
    ]);
    const attempt = doc.paths["/v1/solve/attempts"].post.requestBody.content["application/json"].schema;
    expect(attempt.required).toEqual(["task", "engine", "attempt"]);
    expect(attempt.additionalProperties).toBe(false);
    expect(attempt.properties.engine.additionalProperties).toBe(false);
    const create = doc.paths["/v1/jobs"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["skill_id", "engine"]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "404", "422", "429"]);
    // Every /v1 route documents the loopback Host/Origin refusal.
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path.startsWith("/v1/")) expect(Object.keys(operation.responses), `${method} ${path}`).toContain("403");
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
