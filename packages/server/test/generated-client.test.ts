/**
 * A client generated from the document a real `skillrig serve` serves: openapi-typescript turns GET
 * /v1/openapi.json into types (checked in at fixtures/api-client/skillrig-api.ts and compared with a fresh
 * generation, so the checked-in client cannot drift from the server), tsc typechecks a client written against
 * them (support/api-client.ts) with a fresh generation in a folder of its own, and that client drives a skill job
 * (create, upload, follow, result, artifact) and an oracle run end to end over loopback.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, refusalOf, runOracle, runSkillJob, type SkillrigClient } from "./support/api-client.js";
import { type ChildServer, spawnServer } from "./support/child-server.js";
import { craftZip } from "./support/craft-zip.js";
import { generateClientTypes } from "./support/generate-client.js";
import { DOUBLE_TASK, makeProject } from "./support/server-harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const CHECKED_IN = join(here, "fixtures", "api-client", "skillrig-api.ts");
const CLIENT = join(here, "support", "api-client.ts");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function zipBlob(entries: Parameters<typeof craftZip>[0]): Blob {
  return new Blob([craftZip(entries)], { type: "application/zip" });
}

describe("a client generated from the served OpenAPI document", () => {
  let server: ChildServer;
  let generated: string;
  let client: SkillrigClient;

  beforeAll(async () => {
    server = await spawnServer(makeProject());
    const response = await fetch(`${server.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    await SwaggerParser.validate(structuredClone(document));
    generated = await generateClientTypes(document);
    client = connect(server.url);
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
  });

  it("is the checked-in client (regenerate with UPDATE_GENERATED_CLIENT=1 after changing the API)", () => {
    if (process.env.UPDATE_GENERATED_CLIENT === "1") writeFileSync(CHECKED_IN, generated);
    expect(
      readFileSync(CHECKED_IN, "utf8"),
      "fixtures/api-client/skillrig-api.ts is out of date: run this test with UPDATE_GENERATED_CLIENT=1",
    ).toBe(generated);
    // Named operations and shapes, not postV1Jobs and anonymous types.
    for (const name of ["createJob", "uploadJobFiles", "getJobResult", "listJobs", "createOracleRun"])
      expect(generated).toContain(`${name}: {`);
    expect(generated).toMatch(/Job: \{/);
  });

  it("typechecks: a client written against the fresh generation compiles with tsc --strict", async () => {
    // Inside the package's node_modules so openapi-fetch resolves from it; a folder of its own, removed after.
    const cache = join(here, "..", "node_modules", ".cache");
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, "generated-client-"));
    try {
      mkdirSync(join(dir, "fixtures", "api-client"), { recursive: true });
      mkdirSync(join(dir, "support"));
      writeFileSync(join(dir, "fixtures", "api-client", "skillrig-api.ts"), generated);
      copyFileSync(CLIENT, join(dir, "support", "api-client.ts"));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const compilerOptions = {
        strict: true,
        noEmit: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        types: [],
        skipLibCheck: true,
        noUncheckedIndexedAccess: true,
      };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["support/api-client.ts"] }));
      // Asynchronous: tsc on a loaded machine can block a worker past vitest's fixed 60 s RPC timeout if run with execFileSync.
      const output = await new Promise<string>((done) =>
        execFile(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" }, (error, stdout, stderr) =>
          done(error ? `${stdout}${stderr}` || String(error) : ""),
        ),
      );
      expect(output, "tsc found type errors in the client").toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it("runs a skill job end to end: create, upload, follow, result, artifact", async () => {
    const run = await runSkillJob(
      client,
      { skill_id: "word-count", engine: "echo", input: { label: "essay" }, parameter: { uppercase: true } },
      zipBlob([{ name: "text_file", data: "one two three four", deflate: true }]),
    );
    expect(run.events.filter((e) => e === "status").length).toBeGreaterThanOrEqual(3);
    expect(run.job).toMatchObject({ kind: "skill", status: "succeeded", summary: null });
    expect(run.result).toMatchObject({ status: "succeeded", output: { words: 4, label: "ESSAY" }, run_dir: "." });
    expect(run.artifacts).toEqual([{ field: "report", text: "ESSAY: 4 words\n" }]);
  }, 240_000);

  it("runs an oracle run end to end, its verdict in the job's summary", async () => {
    const task = DOUBLE_TASK;
    const run = await runOracle(client, task, zipBlob([{ name: "double.py", data: "print(int(input()) * 2)\n" }]));
    expect(run.events.filter((e) => e === "case")).toHaveLength(2);
    expect(run.job).toMatchObject({
      kind: "oracle",
      status: "succeeded",
      summary: { total: 2, passed: 1, failed: 1, errored: 0, invalid: 0 },
    });
    expect(run.report).toMatchObject({ task_id: "double", summary: { total: 2, passed: 1, failed: 1 } });
  }, 240_000);

  it("gets a refusal as the typed error body", async () => {
    const error = await refusalOf(client, { skill_id: "word-count", engine: "gemini", input: { label: "x" } });
    expect(error.code).toBe("engine_not_found");
    expect(error.pointer).toBe("/engine");
  });
});
