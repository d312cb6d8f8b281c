/**
 * Honest results: what the API sends names none of the server's folders (its data folder, a job's run folder, the
 * sandbox's temp folders), and a finished oracle run says its verdict in `summary` while its status stays
 * `succeeded`. Each job below leaves server paths in what it stores (the echo engine logs its workspace, a
 * deliverable prints its own location and raises, an oracle run misses its entrypoint); every byte the API
 * answers about them is searched for those folders. Real HTTP on loopback, real Python in the sandbox.
 */
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { craftZip, zipEntries } from "./support/craft-zip.js";
import { api, makeProject, startInProcess, waitForStatus, type Api } from "./support/server-harness.js";

const TASK = {
  contract_version: "1.0",
  task_id: "where",
  deliverable_type: "script",
  entrypoint: "where.py",
  tests: [
    { name: "prints", input: { stdin: "" }, expected: { stdout: "here\n" } },
    { name: "raises", input: { stdin: "boom\n" }, expected: { stdout: "never\n" } },
  ],
};

// Prints where it runs from (cwd and its own path) to stderr, then passes one case and raises in the other.
const WHERE_PY = `import os, sys
print(os.getcwd(), os.path.abspath(__file__), file=sys.stderr)
if sys.stdin.read() == "boom\\n":
    raise RuntimeError("failed at " + os.path.abspath(__file__))
print("here")
`;

describe("the API names no server folder, and says each run's verdict", () => {
  let server: RunningServer;
  let client: Api;
  /** Every text the API answered, to search at the end. */
  const answered: string[] = [];

  const get = async (path: string): Promise<string> => {
    const response = await client.raw(path);
    const text = Buffer.from(await response.arrayBuffer()).toString("latin1");
    answered.push(`${path} -> ${text}`);
    return text;
  };

  beforeAll(async () => {
    server = await startInProcess(makeProject());
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a skill job, an oracle run that fails a case, and one that cannot run: no server path anywhere in their API output", async () => {
    const skill = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "essay" } });
    // Waiting for its upload: nothing resolved yet.
    expect((await client.json("GET", `/v1/jobs/${skill.body.id}`)).body.inputs).toBeNull();
    await client.upload(`/v1/jobs/${skill.body.id}/upload`, craftZip([{ name: "text_file", data: "one two" }]));

    const oracle = await client.json("POST", "/v1/oracle/runs", { task: TASK });
    await client.upload(`/v1/jobs/${oracle.body.id}/upload`, craftZip([{ name: "where.py", data: WHERE_PY }]));

    const missing = await client.json("POST", "/v1/oracle/runs", { task: TASK });
    await client.upload(`/v1/jobs/${missing.body.id}/upload`, craftZip([{ name: "other.py", data: "print(1)\n" }]));

    const refused = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
    const refusal = await client.upload(`/v1/jobs/${refused.body.id}/upload`, craftZip([{ name: "nope", data: "x" }]));
    answered.push(JSON.stringify(refusal.body));
    await client.json("POST", `/v1/jobs/${refused.body.id}/cancel`);

    for (const id of [skill.body.id, oracle.body.id, missing.body.id]) {
      await waitForStatus(client, id, ["succeeded", "failed", "canceled"]);
      for (const route of ["", "/result", "/events", "/artifacts"]) await get(`/v1/jobs/${id}${route}`);
    }
    // The bundle is deflated: its result.json is searched as text.
    const bundle = await client.raw(`/v1/jobs/${skill.body.id}/bundle`);
    answered.push(JSON.stringify(await zipEntries(Buffer.from(await bundle.arrayBuffer()))));
    await get(`/v1/jobs/${refused.body.id}/result`);
    await get("/v1/jobs");

    const all = answered.join("\n");
    // The stored records do hold server paths (so the test would see a leak): the engine logs its workspace.
    expect(all).toContain("echo engine working in workspace");
    const forbidden = new Set<string>();
    for (const folder of [server.settings.dataDir, tmpdir()]) {
      forbidden.add(folder);
      forbidden.add(realpathSync(folder));
    }
    for (const folder of forbidden) {
      const at = all.indexOf(folder === tmpdir() || folder === realpathSync(tmpdir()) ? `${folder}/skillrig-` : folder);
      expect(at, `the API answered a server path (${folder}): ...${all.slice(Math.max(0, at - 200), at + 200)}...`).toBe(-1);
    }
    // The skill job's page shows what it really got: the file by name and size, the inline value, the defaults;
    // an oracle run's request holds hidden expected values, so it has none. (Both answers were searched above.)
    const skillJob = (await client.json("GET", `/v1/jobs/${skill.body.id}`)).body;
    expect(skillJob.inputs).toEqual({
      input: { text_file: "uploads/text_file", label: "essay" },
      parameter: { delay_ms: 0, uppercase: false },
      files: [{ field: "text_file", name: "text_file", size: 7 }],
    });
    expect(JSON.stringify(skillJob.inputs)).not.toContain(server.settings.dataDir);
    expect((await client.json("GET", `/v1/jobs/${oracle.body.id}`)).body.inputs).toBeNull();
    // Only the single job says it, not the list.
    const listed = (await client.json("GET", "/v1/jobs")).body.jobs.find((j: { id: string }) => j.id === skill.body.id);
    expect(listed).not.toHaveProperty("inputs");
    // What replaced them still says where, relative to the job.
    const result = (await client.json("GET", `/v1/jobs/${skill.body.id}/result`)).body;
    expect(result.run_dir).toBe(".");
    expect(result.artifacts[0]).toMatchObject({ path: "artifacts/report.txt", relativePath: "artifacts/report.txt" });
  });

  it("a finished oracle run keeps status succeeded and carries its verdict in summary, on the job and in the listing", async () => {
    const created = await client.json("POST", "/v1/oracle/runs", { task: TASK });
    expect(created.body.summary).toBeNull();
    await client.upload(`/v1/jobs/${created.body.id}/upload`, craftZip([{ name: "where.py", data: WHERE_PY }]));
    const job = await waitForStatus(client, created.body.id, ["succeeded", "failed"]);
    const verdict = { total: 2, passed: 1, failed: 1, errored: 0, invalid: 0 };
    expect(job).toMatchObject({ status: "succeeded", summary: verdict });
    const listed = (await client.json("GET", "/v1/jobs")).body.jobs.find((j: { id: string }) => j.id === created.body.id);
    expect(listed.summary).toEqual(verdict);
    // A solve attempt whose engine wrote no deliverable: carried out (succeeded), none of its scored cases passed.
    const attempt = await client.json("POST", "/v1/solve/attempts", { task: TASK, engine: { name: "echo" }, attempt: 1 });
    expect(attempt.status).toBe(201);
    const solved = await waitForStatus(client, attempt.body.id, ["succeeded", "failed", "canceled"]);
    const attemptResult = (await client.json("GET", `/v1/jobs/${attempt.body.id}/result`)).body;
    expect(attemptResult.status).toBe("artifact_missing");
    expect(solved).toMatchObject({
      kind: "solve",
      status: "succeeded",
      summary: { total: 2, passed: 0, failed: 0, errored: 0, invalid: 0 },
      inputs: null,
    });
    // A skill job has no cases: no summary.
    const quick = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "hi" } });
    expect((await waitForStatus(client, quick.body.id, ["succeeded"])).summary).toBeNull();
  });
});
