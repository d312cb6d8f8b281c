/**
 * `skillrig solve ... --server URL` (the built CLI) against the real `skillrig serve` (a child process, jobs in its
 * worker threads), on both backends: the same report and exit code as the same solve run locally, the hidden tests
 * nowhere in a solve job's run folder (where the engine works), Ctrl-C reaching the workers, and hostile attempt
 * requests refused with pointers. The engine is a user's engine plugin (solve's scripted-engine fixture).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { cli } from "./support/cli-run.js";
import { api, BACKENDS, openBackend, waitFor, type BackendUnderTest } from "./support/server-harness.js";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const SCRIPTED_ENGINE = join(ROOT, "packages", "solve", "test", "fixtures", "scripted-engine.mjs");
const EXAMPLE = join(ROOT, "examples", "solve-run-length");
const TOKEN = "remote-solve-test-token-0123456789";
/** The input of one hidden case of the example task: it must never reach an engine. */
const HIDDEN = "wwwwwwwwwwwwHIDDEN";

/**
 * A report without what differs between any two runs, local or not: timings, job ids and where run folders are
 * (a local solve's at an absolute path under .skillrig/runs; a server's relative to the solve job's run folder,
 * runs/<run id>, as the server names none of its folders).
 */
function comparable(report: unknown): unknown {
  // `at`: when a transcript event came.
  const drop = new Set(["at", "duration_ms", "durationMs", "engineMs", "call_ms", "started_at", "run_dir", "path", "job_id"]);
  const text = JSON.stringify(report, (key, value) => (drop.has(key) || key.endsWith("_at") ? undefined : value));
  return JSON.parse(
    text
      .replace(/(?:[^\s"'`\\]*\/)?(?:\.skillrig\/runs|runs)\/[0-9TZ]+-solve-task-[0-9a-f]+/g, "RUN")
      .replace(/skillrig-[a-z]+-[A-Za-z0-9]+/g, "skillrig-tmp"),
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function project(queue: ReturnType<BackendUnderTest["queue"]>): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-remote-solve-"));
  cpSync(join(EXAMPLE, "task.json"), join(dir, "task.json"));
  cpSync(join(EXAMPLE, "reference"), join(dir, "reference"), { recursive: true });
  const task = JSON.parse(readFileSync(join(EXAMPLE, "task.json"), "utf8"));
  // A case the reference fails: flagged by the reference check (here an oracle run on the server) and not scored.
  task.task_id = "run-length-with-bad-case";
  task.tests.push({ name: "wrong expected", input: ["aa"], expected: "a3" });
  writeFileSync(join(dir, "flawed-task.json"), JSON.stringify(task));
  const reference = readFileSync(join(EXAMPLE, "reference", "solution.py"), "utf8");
  const variant = (label: string, options: Record<string, unknown>) => ({ label, engine: "scripted", options });
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [SCRIPTED_ENGINE],
      solve: {
        variants: [
          variant("right", { files: { "solution.py": reference }, output: { deliverable: "solution.py" } }),
          variant("wrong", { files: { "solution.py": "def encode(text):\n    return text\n" }, output: { deliverable: "solution.py" } }),
          variant("nothing", { files: {}, output: { deliverable: "solution.py" } }),
          variant("slow", { wait_for_abort: true }),
        ],
      },
      server: {
        data_dir: "data",
        tokens: [TOKEN],
        concurrency: 2,
        queue,
        // The scripted engine takes its files from its options; a real server would allow only model and timeouts.
        client_engine_options: ["files", "output", "wait_for_abort"],
        // The scripted engine runs in-process (no CLI to jail).
        allow_unjailed_engines: true,
      },
    }),
  );
  return dir;
}

describe.each(BACKENDS)("skillrig solve --server (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: ChildServer;
  let dir: string;
  const env = { SKILLRIG_SERVER_TOKEN: TOKEN };
  beforeAll(async () => {
    under = await openBackend(backend);
    dir = project(under.queue());
    server = await spawnServer(dir);
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
    await under?.stop();
  });

  it("gives the same report and exit code as a local solve, with the hidden tests kept out of the run folders", async () => {
    const args = [
      "solve",
      "task.json",
      "flawed-task.json",
      "-e",
      "right",
      "-e",
      "wrong",
      "-e",
      "nothing",
      "-k",
      "2",
      "--json",
      "--no-record",
    ];
    const local = await cli(args, dir);
    const remote = await cli([...args, "--server", server.url], dir, env);
    expect(local.code, local.stderr).toBe(1);
    expect(remote.code, remote.stderr).toBe(local.code);
    const localReport = JSON.parse(local.stdout);
    const remoteReport = JSON.parse(remote.stdout);
    expect(localReport.summary).toEqual({ tasks: 2, attempts: 12, passed: 4, not_passed: 8 });
    expect(remoteReport.tasks[1].reference.flagged.map((f: { name: string }) => f.name)).toEqual(["wrong expected"]);
    expect(comparable(remoteReport)).toEqual(comparable(localReport));

    // Every attempt was a solve job on the server; its run folder (where the engine worked) holds no hidden input.
    const { body } = await api(server.url, TOKEN).json("GET", "/v1/jobs?limit=100");
    const solveJobs = body.jobs.filter((j: { kind: string }) => j.kind === "solve");
    expect(solveJobs).toHaveLength(12);
    const runFiles = solveJobs.flatMap((j: { id: string }) => filesUnder(join(dir, "data", "runs", j.id)));
    expect(runFiles.some((f: string) => f.endsWith("solution.py"))).toBe(true);
    const leaking = runFiles.filter((f: string) => statSync(f).size < 5_000_000 && readFileSync(f, "utf8").includes(HIDDEN));
    expect(leaking).toEqual([]);
    // The prompt the engine got on the server shows the public example, not the hidden case.
    const prompt = remoteReport.tasks[0].attempts[0].prompt as string;
    expect(prompt).toContain("aaab");
    expect(prompt).not.toContain(HIDDEN);
  }, 300_000);

  it("Ctrl-C cancels the attempts on the workers and still prints the report", async () => {
    const client = api(server.url, TOKEN);
    const before = new Set(((await client.json("GET", "/v1/jobs?limit=200")).body.jobs as Array<{ id: string }>).map((j) => j.id));
    const run = await cli(
      ["solve", "task.json", "-e", "slow", "-k", "2", "--json", "--no-record", "--server", server.url],
      dir,
      env,
      (interrupt) => {
        // Interrupt once both attempts run on the server's workers.
        void waitFor(
          "two running solve jobs",
          async () => {
            const { body } = await client.json("GET", "/v1/jobs?limit=200");
            const running = body.jobs.filter(
              (j: { id: string; kind: string; status: string }) => !before.has(j.id) && j.kind === "solve" && j.status === "running",
            );
            return running.length === 2 ? true : undefined;
          },
          120_000,
        ).then(interrupt);
      },
    );
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.tasks[0].attempts.map((a: { status: string }) => a.status)).toEqual(["canceled", "canceled"]);
    const { body } = await client.json("GET", "/v1/jobs?limit=200");
    const mine = body.jobs.filter((j: { id: string; kind: string }) => !before.has(j.id) && j.kind === "solve");
    expect(mine.map((j: { status: string; reason: string }) => [j.status, j.reason])).toEqual([
      ["canceled", "canceled_by_client"],
      ["canceled", "canceled_by_client"],
    ]);
  }, 300_000);

  it("refuses hostile or broken attempt requests with the pointer at fault", async () => {
    const client = api(server.url, TOKEN);
    const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
    const binary = await client.json("POST", "/v1/solve/attempts", {
      task,
      engine: { name: "scripted", options: { binary: "/bin/sh" } },
      attempt: 1,
    });
    expect(binary.status).toBe(422);
    expect(binary.body.error).toMatchObject({ code: "schema_violation", pointer: "/engine/options/binary" });
    const unknown = await client.json("POST", "/v1/solve/attempts", { task, engine: { name: "no-such-engine" }, attempt: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "engine_not_found", pointer: "/engine/name" });
    const broken = await client.json("POST", "/v1/solve/attempts", {
      task: { ...task, tests: "none" },
      engine: { name: "scripted" },
      attempt: 1,
    });
    expect(broken.status).toBe(422);
    expect(broken.body.error.pointer).toMatch(/^\/task/);
    const extra = await client.json("POST", "/v1/solve/attempts", {
      task,
      engine: { name: "scripted" },
      attempt: 0,
      files: { x: "/etc/passwd" },
    });
    expect(extra.status).toBe(422);

    const noEngine = await cli(["solve", "task.json", "-e", "gemini", "--server", server.url], dir, env);
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain(`the server at ${server.url} has no engine "gemini"`);
    const wrongToken = await cli(["solve", "task.json", "-e", "right", "--server", server.url], dir, {
      SKILLRIG_SERVER_TOKEN: "not-the-token-at-all",
    });
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.stderr).toContain("unauthorized");
  }, 120_000);
});
