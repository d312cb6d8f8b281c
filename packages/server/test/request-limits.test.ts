/**
 * The server survives any single request (issue 24, class 4): depth and count limits on every JSON body and on
 * tasks, answered with a 422 that names the limit and the JSON pointer, checked on the raw text before anything
 * recursive reads the value. Before, a task nested a few thousand levels deep (8 KB) was accepted and its job never
 * ended (the worker died on it), and with on_restart: requeue it did so again at every start.
 *
 * Verdicts: each hostile body below answers 422 (never 201, never 500), and the server answers /healthz after it.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { cli } from "./support/cli-run.js";
import { api, BACKENDS, makeProject, openBackend, startInProcess, type Api, type BackendUnderTest } from "./support/server-harness.js";

/** `levels` arrays, one inside the other: "[[[...]]]". */
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

const taskText = (expected: string, cases = 1) =>
  `{"contract_version":"1.0","task_id":"deep","deliverable_type":"function","entrypoint":"f","tests":[${Array.from(
    { length: cases },
    (_, i) => `{"name":"c${i}","input":[1],"expected":${expected}}`,
  ).join(",")}]}`;

interface ErrorAnswer {
  status: number;
  body: { error: { code: string; message: string; pointer?: string; violations: Array<{ rule?: string; pointer?: string }> } };
}

async function post(client: Api, path: string, body: string): Promise<ErrorAnswer> {
  const response = await client.raw(path, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: response.status, body: (await response.json()) as ErrorAnswer["body"] };
}

describe.each(BACKENDS)("request limits (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let client: Api;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ queue: under.queue(), task_max_cases: 5 }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("refuses a task nested 4000 levels deep (8 KB) at the door with 422 naming server.json_max_depth and where", async () => {
    const body = `{"task":${taskText(nested(4000))}}`;
    expect(body.length).toBeLessThan(9000);
    const answer = await post(client, "/v1/oracle/runs", body);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("schema_violation");
    expect(answer.body.error.violations[0].rule).toBe("server.json_max_depth");
    expect(answer.body.error.message).toContain("more than 160 levels deep (server.json_max_depth)");
    // The pointer leads to the first array past the limit: /task/tests/0/expected/0/0/...
    expect(answer.body.error.pointer).toMatch(/^\/task\/tests\/0\/expected(\/0)+$/);
    expect((await client.json("GET", "/healthz")).status).toBe(200);
  });

  it("refuses a task deeper than the task limit (128) inside a body the body limit allows, under /task", async () => {
    const answer = await post(client, "/v1/oracle/runs", `{"task":${taskText(nested(140))}}`);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("invalid_task");
    expect(answer.body.error.violations[0]).toMatchObject({ rule: "max_depth" });
    expect(answer.body.error.pointer).toMatch(/^\/task\/tests\/0\/expected(\/0)+$/);
    expect(answer.body.error.message).toContain("more than 128 levels deep");
  });

  it("refuses the same depth in a solve attempt and in a skill job's inputs", async () => {
    const solve = await post(client, "/v1/solve/attempts", `{"task":${taskText(nested(4000))},"engine":{"name":"echo"},"attempt":1}`);
    expect(solve.status).toBe(422);
    expect(solve.body.error.violations[0].rule).toBe("server.json_max_depth");
    const job = await post(
      client,
      "/v1/jobs",
      `{"skill_id":"quick-echo","engine":"echo","input":{"message":"x"},"parameter":{"deep":${nested(4000)}}}`,
    );
    expect(job.status).toBe(422);
    expect(job.body.error.pointer).toMatch(/^\/parameter\/deep(\/0)+$/);
  });

  it("refuses a task with more cases than server.task_max_cases", async () => {
    const answer = await post(client, "/v1/oracle/runs", `{"task":${taskText("1", 6)}}`);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: "invalid_task", pointer: "/task/tests" });
    expect(answer.body.error.message).toContain("at most 5 (server.task_max_cases)");
    expect((await post(client, "/v1/oracle/runs", `{"task":${taskText("1", 5)}}`)).status).toBe(201);
  });

  it("keeps answering: a deep body changes nothing for the next request", async () => {
    const health = await client.json("GET", "/healthz");
    expect(health.body.ok).toBe(true);
  });
});

describe("a deeply nested local task file", () => {
  it("is an invalid task naming the depth limit and the pointer, never a stack overflow", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-deep-local-"));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "task.json"), taskText(nested(20000)));
    writeFileSync(join(dir, "solution.py"), "def f(x):\n    return x\n");
    writeFileSync(join(dir, "skillrig.config.json"), "{}\n");
    const run = await cli(["test", "task.json", "--deliverable", "solution.py"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("invalid_task");
    expect(run.stderr).toContain("more than 128 levels deep");
    expect(run.stderr).toMatch(/\/tests\/0\/expected(\/0)+/);
    expect(run.stderr).not.toContain("Maximum call stack");
  });
});
