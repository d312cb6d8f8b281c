/**
 * Issue 38, fail closed on vacuity: `skillrig test --server` reads the server's report; one that holds fewer verdicts
 * than the cases it was sent (a truncated results stream, a server that lost cases) must never read as a pass. A
 * real HTTP server on loopback plays a jobs server whose result lists 2 verdicts, both passed, for a 3-case task.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrig, writeTree } from "./cli-process.js";

const TASK = {
  contract_version: "1.0",
  task_id: "truncated",
  deliverable_type: "function",
  entrypoint: "solve",
  tests: [0, 1, 2].map((i) => ({ name: `case ${i}`, input: [i], expected: i })),
};

/** The result the server gives: a report whose summary and cases stop after 2 of the 3 cases, every one passed. */
const TRUNCATED = {
  kind: "skillrig-task-report",
  version: 1,
  task_id: "truncated",
  deliverable_type: "function",
  summary: { total: 2, passed: 2, failed: 0, errored: 0, invalid: 0 },
  cases: [0, 1].map((i) => ({
    name: `case ${i}`,
    index: i,
    status: "passed",
    duration_ms: 1,
    input: [i],
    expected: i,
    actual: i,
  })),
  isolation: "namespaces",
  duration_ms: 5,
};

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _chunk of req) {
    // the task and the deliverable's zip are not looked at
  }
}

const server = createServer(async (req, res) => {
  await drain(req);
  const url = req.url ?? "";
  if (req.method === "POST" && url === "/v1/oracle/runs") return answer(res, 201, { id: "job-1" });
  if (req.method === "POST" && url === "/v1/jobs/job-1/upload") return answer(res, 202, { id: "job-1" });
  if (url === "/v1/jobs/job-1/events") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    return res.end(`data: ${JSON.stringify({ type: "status", data: { status: "succeeded" } })}\n\n`);
  }
  if (url === "/v1/jobs/job-1/result") return answer(res, 200, TRUNCATED);
  return answer(res, 404, { error: { code: "not_found", message: `${req.method} ${url}` } });
});

let base = "";
beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

describe("skillrig test --server and a report that ended early", () => {
  it("is incomplete, exits 2 (never 0), and says so in the JSON report and on the console", async () => {
    const dir = writeTree({ "task.json": JSON.stringify(TASK), "solution.py": "def solve(x):\n    return x\n" }, "skillrig-truncated-");
    const json = await skillrig(["test", "task.json", "-d", "solution.py", "--server", base, "--json", "--no-record"], dir);
    expect(json.code, json.stderr).toBe(2);
    const report = JSON.parse(json.stdout) as {
      summary: { total: number; passed: number };
      incomplete?: { reason: string; missing: number };
    };
    expect(report.incomplete).toEqual({
      reason: `the oracle run on ${base} ended early: 1 of the 3 selected case(s) got no verdict`,
      missing: 1,
    });
    expect(report.summary).toMatchObject({ total: 3, passed: 2 });
    const human = await skillrig(["test", "task.json", "-d", "solution.py", "--server", base, "--no-record"], dir);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain(
      `incomplete report: the oracle run on ${base} ended early: 1 of the 3 selected case(s) got no verdict; this is not a pass`,
    );
  });
});
