/**
 * The engine-output class: a hostile ACP agent (fixtures/engine-output/hostile-acp-agent.mjs, a script of the corpus's
 * own) is the engine, driven by @skillrig/engine-acp in the agent jail through the built CLI, in a skill job
 * (`skillrig run`), in `skillrig solve` and in `skillrig eval` (both configurations of one eval case). It floods its
 * stdout, prints one giant line, runs a fork bomb or fills its workspace. Each row must get its verdict (the job's
 * status and error code read from the run folder's result.json, solve's attempt status and the code in its message),
 * the CLI must end by itself with it (no RangeError, no crash), the run folder must hold at most one bounded copy of
 * the output, and the machine must still start a process. An eval row's verdict is each job's result.json under the
 * iteration's `jobs/` (every run must have ended so: the first run's bound does not stop the second) and each run's
 * grading.json.
 *
 * Every row runs with `sandbox.agent.workspace_bytes` at 64 MiB (the disk filler's bound), `output_bytes` at 16 MiB
 * and `line_bytes` at 2 MiB (the flood's and the giant line's: a quarter of their defaults, enforced by the same code,
 * so a row pushes a quarter of the bytes through the runner to prove them), the other bounds at their defaults. The
 * rows are split over the `engine-output-*.test.ts` files (every third row each), so CI runs them beside each other.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkAgent, expectVerdict, mtime, workspaces } from "./agent.js";
import { type EntryPoint, type LoadedFixture, loadCorpus, REPO, type User, verdictFor } from "./fixtures.js";
import { type CliRun, copyFixture, logRow, runCli, usersHere, workspace } from "./run.js";

const ACP_PLUGIN = join(REPO, "plugins", "engine-acp", "dist", "index.js");
const MiB = 1024 * 1024;
/** sandbox.agent.output_bytes of every row: the logs and the event log together hold at most this. */
const OUTPUT_BYTES = 16 * MiB;
/** sandbox.agent.line_bytes of every row: the giant line is stopped here. */
const LINE_BYTES = 2 * MiB;
const ENGINE = "hostile-acp";
type Entry = "skill-job" | "solve" | "eval";

const corpus = loadCorpus().filter((f) => f.spec.agent?.acp_agent);
const rows = corpus.flatMap((fixture) =>
  fixture.spec.entry_points
    .filter((e): e is Entry => e === "skill-job" || e === "solve" || e === "eval")
    .flatMap((entry) => usersHere(fixture.spec.users).map((user) => ({ fixture, entry, user }))),
);

/** Bytes of every file under `folder`, `skip` (a folder name) left out. */
function folderBytes(folder: string, skip?: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== skip) bytes += folderBytes(path);
    else if (entry.isFile()) bytes += statSync(path).size;
  }
  return bytes;
}

/** The agent script in a folder of its own (`acp-agent/bin/`): the jail binds an executable's installation, the folder above its bin. */
function installAgent(fixture: LoadedFixture, dir: string): string {
  const agent = join(dir, "acp-agent", "bin", "hostile-acp-agent.mjs");
  mkdirSync(dirname(agent), { recursive: true });
  copyFileSync(join(fixture.dir, fixture.spec.agent!.acp_agent!), agent);
  chmodSync(agent, 0o755);
  return agent;
}

function config(fixture: LoadedFixture, agent: string, entry: EntryPoint): Record<string, unknown> {
  const engine = {
    name: ENGINE,
    command: [agent, ...(fixture.spec.agent!.acp_args ?? [])],
    mock_scenario: "scenario.json",
    timeout_ms: 240_000,
  };
  return {
    plugins: [[ACP_PLUGIN, engine]],
    runs_dir: "runs",
    sandbox: { agent: { workspace_bytes: 64 * MiB, output_bytes: OUTPUT_BYTES, line_bytes: LINE_BYTES } },
    ...(entry === "solve" ? { solve: { variants: [{ label: "agent", engine: ENGINE }] } } : {}),
  };
}

function run(fixture: LoadedFixture, entry: Entry, user: User): Promise<{ run: CliRun; runs: string }> {
  const ws = workspace(user);
  const dir = copyFixture(fixture, ws);
  const agent = installAgent(fixture, dir);
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify(config(fixture, agent, entry)));
  const skill = join(dir, fixture.spec.agent!.skill!);
  const out = join(dir, "out");
  const args =
    entry === "solve"
      ? ["solve", join(dir, fixture.spec.agent!.task!), "-e", "agent", "--json"]
      : entry === "eval"
        ? ["eval", skill, "--engine", ENGINE, "--out", out, "--json", "--runs", "1", "--no-triggers", "--min-pass-rate", "0.5"]
        : ["run", skill, "-e", ENGINE, "--prompt", "Take a note."];
  // An eval's job run folders are under its iteration's jobs/.
  return runCli(ws, args, dir).then((r) => ({ run: r, runs: entry === "eval" ? join(out, "iteration-1", "jobs") : join(dir, "runs") }));
}

/** The rows of shard `shard` of `shards` (every shards-th row from the shard-th), described as one suite. */
export function describeEngineOutput(shard: number, shards: number): void {
  const part = rows.filter((_row, index) => index % shards === shard);
  describe(`hostile ACP agents: engine output and the agent jail's bounds (rows ${shard + 1} of every ${shards})`, () => {
    it.each(part.map((r) => [`${r.fixture.id} through ${r.entry} as ${r.user}`, r] as const))(
      "%s",
      async (_name, { fixture, entry, user }) => {
        const { run: cli, runs } = await run(fixture, entry, user);
        const verdict = verdictFor(fixture.spec, { entry_point: entry, user });
        const problems: string[] = [];
        const observed: string[] = [`exit ${cli.code}`];
        if (/RangeError|Invalid string length|heap out of memory/.test(cli.stderr))
          problems.push(`the runner crashed: ${cli.stderr.slice(-800)}`);
        if (verdict.exit !== undefined && cli.code !== verdict.exit)
          problems.push(`exit ${cli.code}, must be ${verdict.exit}: ${cli.stderr.slice(-800)}`);
        const found = workspaces(runs).sort((a, b) => mtime(b) - mtime(a));
        const runFolder = found[0] ? dirname(found[0]) : undefined;
        if (entry === "skill-job" && verdict.job) {
          const resultFile = runFolder ? join(runFolder, "result.json") : "";
          const result = existsSync(resultFile)
            ? (JSON.parse(readFileSync(resultFile, "utf8")) as { status: string; error?: { code: string; message: string } })
            : undefined;
          observed.push(`job: ${result?.status} ${result?.error?.code ?? ""} ${result?.error?.message.slice(0, 200) ?? ""}`);
          if (result?.status !== verdict.job.status) problems.push(`job ${result?.status}, must be ${verdict.job.status}`);
          if (verdict.job.code && result?.error?.code !== verdict.job.code)
            problems.push(`job error ${result?.error?.code}, must be ${verdict.job.code}`);
        }
        if (entry === "solve" && verdict.attempts) {
          const want = Array.isArray(verdict.attempts) ? verdict.attempts : [verdict.attempts];
          let attempts: Array<{ status: string; message?: string }> = [];
          try {
            attempts = (
              JSON.parse(cli.stdout) as { tasks: Array<{ attempts: Array<{ status: string; message?: string }> }> }
            ).tasks.flatMap((t) => t.attempts);
          } catch {
            problems.push(`no solve report: ${cli.stderr.slice(-800)}`);
          }
          observed.push(`attempts: ${attempts.map((a) => `${a.status} ${a.message?.slice(0, 200) ?? ""}`).join(", ")}`);
          if (attempts.length === 0 || attempts.some((a) => !want.includes(a.status as never)))
            problems.push(`attempts ${attempts.map((a) => a.status).join(", ")}, must be ${want.join(" or ")}`);
          const code = verdict.job?.code;
          if (code && attempts.some((a) => !a.message?.includes(`[${code}]`)))
            problems.push(`an attempt's message does not name [${code}]`);
        }
        // One bounded copy of the output: everything but the workspace (the disk filler's, bounded on its own).
        if (runFolder) {
          const kept = folderBytes(runFolder, "workspace");
          observed.push(`run folder without its workspace: ${(kept / MiB).toFixed(1)} MiB`);
          if (kept > OUTPUT_BYTES + 4 * MiB)
            problems.push(`the run folder keeps ${kept} bytes of output, past output_bytes (${OUTPUT_BYTES})`);
          if (fixture.id.endsWith("disk-fill")) {
            const written = folderBytes(join(runFolder, "workspace"));
            observed.push(`workspace: ${(written / MiB).toFixed(1)} MiB`);
            if (written >= 1024 * MiB) problems.push("the disk filler wrote all it wanted");
          }
        }
        // The machine is not hurt: a process still starts.
        if (spawnSync("true").status !== 0) problems.push("the host cannot start a process after the row");
        const agent = checkAgent(fixture, found[0], verdict);
        problems.push(...agent.problems);
        observed.push(...agent.observed);
        logRow({ fixture: fixture.id, entry_point: entry, user, ok: problems.length === 0, problems, observed: observed.join(" | ") });
        expectVerdict(fixture, found, cli.stderr, problems, observed);
      },
      300_000,
    );
  });
}
