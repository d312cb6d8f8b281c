/**
 * The agent classes: a scripted agent (a @skillrig/mock-model scenario played by the real Gemini CLI, through its
 * own write and shell tools) attacks from inside the agent jail, in `skillrig solve` and in a skill job
 * (`skillrig run`), as root and as uid 65534. What it did is read back from its workspace in the run folder:
 * its `id`, its /proc/self/status, and the attack's own log. The rows are split over the `agents-*.test.ts` files: the
 * local rows in one, the `solve-server-sqlite` rows (each a real Gemini CLI run on a `skillrig serve` worker, the
 * longest) in two, so CI runs them beside each other.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { checkAgent, expectVerdict, GEMINI_PLUGIN, mtime, scenario, workspaces } from "./agent.js";
import { type EntryPoint, type LoadedFixture, loadCorpus, type User, verdictFor } from "./fixtures.js";
import { type CliRun, copyFixture, logRow, runCli, usersHere, type Workspace, workspace } from "./run.js";
import { type Serve, startServe } from "./serve.js";

// A fixture whose agent is an ACP script of its own runs in test/support/engine-output-rows.ts.
const corpus = loadCorpus().filter((f) => f.spec.agent && !f.spec.agent.acp_agent);

interface Row {
  fixture: LoadedFixture;
  entry: EntryPoint;
  user: User;
}
const rows: Row[] = corpus.flatMap((fixture) =>
  fixture.spec.entry_points
    .filter((e) => e === "solve" || e === "solve-server-sqlite" || e === "skill-job")
    .flatMap((entry) => usersHere(fixture.spec.users).map((user) => ({ fixture, entry, user }))),
);

/** One `skillrig serve` (sqlite) per user, started on first use: its workers run the solve attempts. */
const servers = new Map<User, Promise<{ serve: Serve; ws: Workspace }>>();
afterAll(async () => {
  for (const started of servers.values()) await (await started.catch(() => undefined))?.serve.stop();
});
function solveServer(user: User): Promise<{ serve: Serve; ws: Workspace }> {
  let started = servers.get(user);
  if (!started) {
    const ws = workspace(user);
    started = startServe(ws, "sqlite", undefined, {
      plugins: [[GEMINI_PLUGIN, { approval_mode: "yolo", timeout_ms: 240_000 }]],
      // The scenario is the client's: a test server lets clients set it (a real one allows model and timeouts only).
      server: { client_engine_options: ["mock_scenario", "timeout_ms"] },
    }).then((serve) => ({ serve, ws }));
    servers.set(user, started);
  }
  return started;
}

const isServerRow = (row: Row) => row.entry === "solve-server-sqlite";

/**
 * The rows of one part: `local` (solve and skill-job), or the server rows of shard `server` of `shards` (every
 * shards-th server row from the shard-th). Each fixture's server rows come as root then as uid 65534, so two shards
 * put the root rows in one file and the uid 65534 rows in the other: each file starts the one server of its user.
 */
export function describeAgents(part: { local: true } | { server: number; shards: number }): void {
  const chosen =
    "local" in part
      ? rows.filter((row) => !isServerRow(row))
      : rows.filter(isServerRow).filter((_row, index) => index % part.shards === part.server);
  const title = "local" in part ? "solve and skill jobs" : `solve --server, rows ${part.server + 1} of every ${part.shards}`;
  describe(`scripted agents in the agent jail: ${title}`, () => {
    it.each(chosen.map((r) => [`${r.fixture.id} through ${r.entry} as ${r.user}`, r] as const))(
      "%s",
      async (_name, { fixture, entry, user }) => {
        const ws = workspace(user);
        const dir = copyFixture(fixture, ws);
        writeFileSync(join(dir, "scenario.filled.json"), JSON.stringify(scenario(fixture)));
        const engine = { approval_mode: "yolo", mock_scenario: "scenario.filled.json", timeout_ms: 240_000 };
        let run: CliRun;
        let runsRoot = join(dir, "runs");
        if (entry === "solve") {
          writeFileSync(
            join(dir, "skillrig.config.json"),
            JSON.stringify({
              plugins: [GEMINI_PLUGIN],
              runs_dir: "runs",
              solve: { variants: [{ label: "agent", engine: "gemini", options: engine }] },
            }),
          );
          run = await runCli(ws, ["solve", join(dir, fixture.spec.agent!.task!), "-e", "agent", "--json"], dir);
        } else if (entry === "solve-server-sqlite") {
          const { serve, ws: serverWs } = await solveServer(user);
          const options = { mock_scenario: scenario(fixture), timeout_ms: 240_000 };
          writeFileSync(
            join(dir, "skillrig.config.json"),
            JSON.stringify({ plugins: [GEMINI_PLUGIN], solve: { variants: [{ label: "agent", engine: "gemini", options }] } }),
          );
          const task = join(dir, fixture.spec.agent!.task!);
          run = await runCli(ws, ["solve", task, "-e", "agent", "--json", "--no-record", "--server", serve.url], dir);
          // The attempt ran on the server's worker: its run folder is under the server's data folder.
          runsRoot = join(serverWs.dir, "serve-sqlite", "data", "runs");
        } else {
          writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: [[GEMINI_PLUGIN, engine]], runs_dir: "runs" }));
          run = await runCli(ws, ["run", join(dir, fixture.spec.agent!.skill!), "-e", "gemini"], dir);
        }
        const verdict = verdictFor(fixture.spec, { entry_point: entry, user });
        const problems: string[] = [];
        const observed: string[] = [`exit ${run.code}`];
        if (verdict.exit !== undefined && run.code !== verdict.exit)
          problems.push(`exit ${run.code}, must be ${verdict.exit}: ${run.stderr.slice(-800)}`);
        if (verdict.attempts) {
          const want = Array.isArray(verdict.attempts) ? verdict.attempts : [verdict.attempts];
          let statuses: string[] = [];
          try {
            const report = JSON.parse(run.stdout) as { tasks: Array<{ attempts: Array<{ status: string }> }> };
            statuses = report.tasks.flatMap((t) => t.attempts.map((a) => a.status));
          } catch {
            problems.push(`no solve report: ${run.stderr.slice(-800)}`);
          }
          observed.push(`attempts: ${statuses.join(", ")}`);
          if (statuses.length === 0 || statuses.some((s) => !want.includes(s as never)))
            problems.push(`attempts ${statuses.join(", ")}, must be ${want.join(" or ")}`);
        }
        // Several attempts may have run on one server: the newest workspace holding the attack's log is this row's.
        const found = workspaces(runsRoot).sort((a, b) => mtime(b) - mtime(a));
        const agent = checkAgent(fixture, found[0], verdict);
        problems.push(...agent.problems);
        observed.push(...agent.observed);
        logRow({ fixture: fixture.id, entry_point: entry, user, ok: problems.length === 0, problems, observed: observed.join(" | ") });
        expectVerdict(fixture, found, run.stderr, problems, observed);
      },
      300_000,
    );
  });
}
