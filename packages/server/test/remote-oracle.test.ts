/**
 * `skillrig test <task> -d <deliverable> --server URL` (the built CLI) grades on a jobs server, on both backends,
 * and prints the same report and exit code as the same command run locally. The token comes from the
 * environment; a wrong one and an unreachable server are clear errors.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { cli } from "./support/cli-run.js";
import { api, BACKENDS, makeProject, openBackend, startInProcess, type BackendUnderTest } from "./support/server-harness.js";

const TOKEN = "remote-oracle-test-token-0123456789";

/**
 * The per-run temp folders a script deliverable is copied into or a sample's solution is written to:
 * `/tmp/skillrig-script-<random>` in a local report, `<tmp>/skillrig-script-<random>` in the server's (which names
 * none of its folders).
 */
const RUN_FOLDER = new RegExp(`(?:${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|<tmp>)/skillrig-(script|samples)-[A-Za-z0-9]+`, "g");

/** A report without what differs between any two runs, local or not: timings and those temp folders. */
function comparable(report: unknown): unknown {
  const text = JSON.stringify(report, (key, value) => (key === "duration_ms" || key.endsWith("_at") ? undefined : value));
  return JSON.parse(text.replace(RUN_FOLDER, "TMP/skillrig-$1-X"));
}

/** A task folder with a script deliverable that passes two cases and fails one. */
function taskFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-remote-task-"));
  // The sandbox may run the deliverable as an unprivileged user, which must be able to enter the folder.
  chmodSync(dir, 0o755);
  const task = {
    contract_version: "1.0",
    task_id: "double-remote",
    deliverable_type: "script",
    entrypoint: "double.py",
    tests: [
      { name: "two", input: { stdin: "2\n" }, expected: { stdout: "4\n" } },
      { name: "five", input: { stdin: "5\n" }, expected: { stdout: "11\n" } },
      { name: "zero", input: { stdin: "0\n" }, expected: { stdout: "0\n" } },
    ],
  };
  writeFileSync(join(dir, "task.json"), JSON.stringify(task, null, 2));
  writeFileSync(join(dir, "double.py"), "print(int(input()) * 2)\n");
  writeFileSync(join(dir, "skillrig.config.json"), "{}\n");
  return dir;
}

/** A suite: two script tasks in folders of their own, and samples (two per task, one of them wrong). */
function suiteFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-remote-suite-"));
  chmodSync(dir, 0o755);
  const task = (id: string, factor: number) => ({
    contract_version: "1.0",
    task_id: id,
    deliverable_type: "script",
    entrypoint: "main.py",
    tests: [1, 2, 3].map((n) => ({ name: `times ${n}`, input: { stdin: `${n}\n` }, expected: { stdout: `${n * factor}\n` } })),
  });
  for (const [id, factor] of [
    ["double", 2],
    ["triple", 3],
  ] as const) {
    mkdirSync(join(dir, "tasks", id), { recursive: true });
    writeFileSync(join(dir, "tasks", id, "task.json"), JSON.stringify(task(id, factor), null, 2));
  }
  const sample = (id: string, factor: number) => JSON.stringify({ task_id: id, solution: `print(int(input()) * ${factor})\n` });
  writeFileSync(
    join(dir, "samples.jsonl"),
    [sample("double", 2), sample("double", 3), sample("triple", 3), sample("triple", 3)].join("\n"),
  );
  writeFileSync(join(dir, "skillrig.config.json"), "{}\n");
  return dir;
}

describe.each(BACKENDS)("skillrig test --server (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let tasks: string;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ tokens: [TOKEN], queue: under.queue() }));
    tasks = taskFolder();
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("prints the same JSON report and exits with the same code as a local run", async () => {
    const args = ["test", "task.json", "--deliverable", "double.py", "--json"];
    const local = await cli(args, tasks);
    const remote = await cli([...args, "--server", server.url], tasks, { SKILLRIG_SERVER_TOKEN: TOKEN });
    expect(local.code).toBe(1);
    expect(remote.code).toBe(local.code);
    const localReport = JSON.parse(local.stdout);
    const remoteReport = JSON.parse(remote.stdout);
    expect(localReport.summary).toMatchObject({ total: 3, passed: 2, failed: 1 });
    expect(comparable(remoteReport)).toEqual(comparable(localReport));
    // Progress of each case came over the job's event stream.
    expect(remote.stderr).toContain(`on ${server.url}`);
    expect(remote.stderr).toMatch(/\[3\/3\]/);
  });

  it("-k and --limit send only the selected cases (the task file's indexes kept); tracebacks name the user's file", async () => {
    mkdirSync(join(tasks, "raising"), { recursive: true });
    writeFileSync(join(tasks, "raising", "double.py"), "def main():\n    raise ValueError('no')\n\nmain()\n");
    const args = ["test", "task.json", "--deliverable", "raising/double.py", "-k", "five or zero", "--limit", "1", "--json"];
    const local = await cli(args, tasks);
    const remote = await cli([...args, "--server", server.url], tasks, { SKILLRIG_SERVER_TOKEN: TOKEN });
    expect(remote.code, remote.stderr).toBe(1);
    expect(remote.code).toBe(local.code);
    const report = JSON.parse(remote.stdout);
    expect(report.cases.map((c: { name: string; index: number }) => [c.name, c.index])).toEqual([["five", 1]]);
    expect(comparable(report)).toEqual(comparable(JSON.parse(local.stdout)));
    expect(report.cases[0].details.stderr).toContain(`File "${join(tasks, "raising", "double.py")}", line 2, in main`);
    expect(JSON.stringify(report)).not.toMatch(/\/runs\/[0-9a-f-]{36}\/deliverable\//);
  });

  it("grades a suite on the server's workers with the same JSON and JUnit reports and exit code as a local run", async () => {
    const suite = suiteFolder();
    const args = (out: string) => [
      "test",
      "tasks",
      "--samples",
      "samples.jsonl",
      "--k",
      "2",
      "--json",
      "--reporter",
      "junit",
      "--out",
      out,
    ];
    const local = await cli(args("local"), suite);
    const remote = await cli([...args("remote"), "--server", server.url], suite, { SKILLRIG_SERVER_TOKEN: TOKEN });
    expect(local.code, local.stderr).toBe(1);
    expect(remote.code, remote.stderr).toBe(local.code);
    const localReport = JSON.parse(local.stdout);
    expect(localReport.summary).toMatchObject({ tasks: 2, samples: 4, samples_passed: 3, samples_failed: 1 });
    expect(localReport.pass_at_k["pass@2"]).toEqual({ value: 1, tasks: 2 });
    expect(comparable(JSON.parse(remote.stdout))).toEqual(comparable(localReport));
    const junit = (which: string) =>
      readFileSync(join(suite, which, "suite.junit.xml"), "utf8")
        .replace(/time="[0-9.]+"/g, 'time="T"')
        .replace(/timestamp="[^"]+"/g, 'timestamp="T"')
        .replace(RUN_FOLDER, "TMP/skillrig-$1-X");
    expect(junit("remote")).toEqual(junit("local"));
    // Every sample was an oracle run on the server.
    const { body } = await api(server.url, TOKEN).json("GET", "/v1/jobs?limit=100");
    const suiteRuns = body.jobs.filter((j: { kind: string; status: string }) => j.kind === "oracle" && j.status === "succeeded");
    expect(suiteRuns.length).toBeGreaterThanOrEqual(4);
  }, 180_000);

  it("refuses a wrong token and an unreachable server with clear errors", async () => {
    const args = ["test", "task.json", "--deliverable", "double.py"];
    const wrong = await cli([...args, "--server", server.url], tasks, { SKILLRIG_SERVER_TOKEN: "not-the-token-at-all" });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unauthorized");
    const nowhere = await cli([...args, "--server", "http://127.0.0.1:1"], tasks, { SKILLRIG_SERVER_TOKEN: TOKEN });
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain("cannot reach the server at http://127.0.0.1:1");
    const notUrl = await cli([...args, "--server", "localhost:8765"], tasks);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain("--server must be an http(s) URL");
  });
});
