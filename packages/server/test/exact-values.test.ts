/**
 * Values cross the server exactly (issue 24, class 2). The task is the same text on both sides: `skillrig test
 * --server` sends each case's input and expected as the task file wrote them, and the server reads the task from
 * the request body's own text, as a local run reads the file. Run against the real `skillrig serve` (built CLI) on
 * both backends, with the real function plugin and Python.
 *
 * Verdicts each case must get, here and locally:
 *   past 2^53        expected 9007199254740993, the deliverable returns 9007199254740992  -> failed
 *   a float input    input 3.0, the deliverable says whether it got a float                -> passed
 *   inf input        input 1e400 (Python's float("inf")), the deliverable checks it         -> passed
 *   inf expected     expected 1e400, the deliverable returns float("inf")                   -> passed
 * Through plain JSON the first passed (both sides rounded to 2^53) and the other three failed.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { craftZip } from "./support/craft-zip.js";
import { cli } from "./support/cli-run.js";
import { api, BACKENDS, makeProject, openBackend, waitForStatus, type BackendUnderTest } from "./support/server-harness.js";

const TASK_TEXT = `{
  "contract_version": "1.0",
  "task_id": "exact-values",
  "deliverable_type": "function",
  "entrypoint": "probe",
  "tests": [
    { "name": "past 2^53", "input": ["big"], "expected": 9007199254740993 },
    { "name": "a float input", "input": ["float", 3.0], "expected": true },
    { "name": "inf input", "input": ["inf", 1e400], "expected": true },
    { "name": "inf expected", "input": ["inf_out"], "expected": 1e400 }
  ]
}
`;

const SOLUTION = `def probe(kind, x=None):
    if kind == "big":
        return 9007199254740992
    if kind == "float":
        return isinstance(x, float)
    if kind == "inf":
        return x == float("inf")
    return float("inf")
`;

function taskFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-exact-"));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "task.json"), TASK_TEXT);
  writeFileSync(join(dir, "solution.py"), SOLUTION);
  writeFileSync(join(dir, "skillrig.config.json"), "{}\n");
  return dir;
}

const verdicts = (report: { cases: Array<{ name: string; status: string }> }) =>
  Object.fromEntries(report.cases.map((c) => [c.name, c.status]));

/** A report without what differs between any two runs: timings (`*_ms`, `*_at`) and per-run folders. */
function comparable(report: unknown): unknown {
  const text = JSON.stringify(report, (key, value) =>
    key.endsWith("_ms") || key.endsWith("_at") || key === "run_dir" || key === "dir" ? undefined : value,
  );
  return JSON.parse(text.replace(/skillrig-[a-z]+-[A-Za-z0-9]+/g, "skillrig-X"));
}

const EXPECTED_VERDICTS = {
  "past 2^53": "failed",
  "a float input": "passed",
  "inf input": "passed",
  "inf expected": "passed",
};

describe.each(BACKENDS)("values cross --server exactly (%s backend)", { timeout: 300_000 }, (backend) => {
  let under: BackendUnderTest;
  let server: ChildServer;
  let dir: string;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await spawnServer(makeProject({ queue: under.queue() }));
    dir = taskFolder();
  }, 300_000);
  afterAll(async () => {
    await server?.kill();
    await under?.stop();
  });

  it("skillrig test --server gives every case the verdict and the report a local run gives", async () => {
    const args = ["test", "task.json", "--deliverable", "solution.py", "--json"];
    const local = await cli(args, dir);
    expect(local.code, local.stderr).toBe(1);
    expect(verdicts(JSON.parse(local.stdout))).toEqual(EXPECTED_VERDICTS);
    const remote = await cli([...args, "--server", server.url], dir);
    expect(remote.code, remote.stderr).toBe(1);
    expect(verdicts(JSON.parse(remote.stdout))).toEqual(EXPECTED_VERDICTS);
    // The whole report came back as a local run writes it: values, exact return texts and diffs included.
    expect(comparable(JSON.parse(remote.stdout))).toEqual(comparable(JSON.parse(local.stdout)));
  });

  it("POST /v1/oracle/runs reads the task from the body's text, numbers as written", async () => {
    const client = api(server.url);
    const created = await client.raw("/v1/oracle/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"task": ${TASK_TEXT}}`,
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "solution.py", data: SOLUTION }]))).status).toBe(202);
    await waitForStatus(client, id, ["succeeded", "failed"], 240_000);
    const result = await client.json("GET", `/v1/jobs/${id}/result`);
    expect(verdicts(result.body)).toEqual(EXPECTED_VERDICTS);
    // The report keeps the exact text of what Python returned where JavaScript cannot hold it.
    const big = result.body.cases.find((c: { name: string }) => c.name === "past 2^53");
    expect(JSON.stringify(big)).toContain("9007199254740992");
  });
});

/**
 * The same through `skillrig solve --server`: the reference check (an oracle run) and each attempt (a solve job)
 * get the task as text. Verdicts: the reference (returns 2**53 + 1) passes the check; the attempt "exact" passes;
 * the attempt "rounded" (returns 2**53, what plain JSON would have made of the expected value) does not.
 */
const SOLVE_TASK = `{
  "contract_version": "1.0",
  "task_id": "big-successor",
  "deliverable_type": "function",
  "entrypoint": "successor",
  "description": "successor(n) returns n + 1, exactly, for any integer n.",
  "reference_solution": "reference/solution.py",
  "public_examples_preview": [{ "name": "small", "input": [1], "expected": 2 }],
  "tests": [{ "name": "past 2^53", "input": [9007199254740992], "expected": 9007199254740993 }]
}
`;
const SCRIPTED_ENGINE = join(import.meta.dirname, "..", "..", "solve", "test", "fixtures", "scripted-engine.mjs");

function solveProject(queue: ReturnType<BackendUnderTest["queue"]>): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-exact-solve-"));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "task.json"), SOLVE_TASK);
  mkdirSync(join(dir, "reference"));
  writeFileSync(join(dir, "reference", "solution.py"), "def successor(n):\n    return n + 1\n");
  const variant = (label: string, source: string) => ({
    label,
    engine: "scripted",
    options: { files: { "solution.py": source }, output: { deliverable: "solution.py" } },
  });
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [SCRIPTED_ENGINE],
      solve: {
        variants: [
          variant("exact", "def successor(n):\n    return n + 1\n"),
          variant("rounded", "def successor(n):\n    return 9007199254740992\n"),
        ],
      },
      server: {
        data_dir: "data",
        queue,
        client_engine_options: ["files", "output"],
        // The scripted engine runs in-process (no CLI to jail).
        allow_unjailed_engines: true,
      },
    }),
  );
  return dir;
}

describe.each(BACKENDS)("values cross solve --server exactly (%s backend)", { timeout: 300_000 }, (backend) => {
  let under: BackendUnderTest;
  let server: ChildServer;
  let dir: string;
  beforeAll(async () => {
    under = await openBackend(backend);
    dir = solveProject(under.queue());
    server = await spawnServer(dir);
  }, 300_000);
  afterAll(async () => {
    await server?.kill();
    await under?.stop();
  });

  it("the attempt that rounds past 2^53 does not pass, on the server as locally", async () => {
    const args = ["solve", "task.json", "-e", "exact", "-e", "rounded", "--json", "--no-record"];
    const statuses = (stdout: string) =>
      Object.fromEntries(
        (JSON.parse(stdout).tasks[0].attempts as Array<{ engine: string; status: string }>).map((a) => [a.engine, a.status]),
      );
    const local = await cli(args, dir);
    expect(local.code, local.stderr).toBe(1);
    const remote = await cli([...args, "--server", server.url], dir);
    expect(remote.code, remote.stderr).toBe(1);
    expect(statuses(remote.stdout)).toEqual(statuses(local.stdout));
    expect(statuses(remote.stdout)).toEqual({ exact: "passed", rounded: "failed" });
  });
});
