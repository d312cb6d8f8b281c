/**
 * Every fixture with a deliverable to grade, through `skillrig test` (the built CLI): locally at each sandbox level
 * it names (with --sandbox-level) as root and as uid 65534, and with `--server` against a real `skillrig serve` on
 * the sqlite backend and on the redis backend (one server per backend and file). Each row must get the verdict
 * the fixture states, and the attack's marker must show in what the run printed (so no fixture passes by doing
 * nothing). The rows are described here and split over the `grading-*.test.ts` files.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableLevels } from "@skillrig/sandbox";
import { type Level, type LoadedFixture, loadCorpus, type User, verdictFor } from "./fixtures.js";
import {
  checkGrading,
  type CliRun,
  copyFixture,
  isRoot,
  logRow,
  reachable,
  refused,
  runCli,
  usersHere,
  workspace,
  type Workspace,
} from "./run.js";
import { checkStartOrder, send, sendSpec, waitForFinal } from "./http.js";
import { type Backend, type Redis, type Serve, startRedis, startServe } from "./serve.js";

const everything = loadCorpus();
const corpus = everything.filter((f) => f.spec.grade);
const httpCorpus = everything.filter((f) => f.spec.http);
const machineLevels = new Set(
  availableLevels()
    .filter((l) => l.available)
    .map((l) => l.level as Level),
);

/** Every file under HOME with a digest of its content (what a later run could trust). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[path.slice(dir.length)] = createHash("sha256").update(readFileSync(path)).digest("hex");
    else if (entry.isSymbolicLink()) out[path.slice(dir.length)] = "symlink";
    else if (entry.isDirectory()) out[`${path.slice(dir.length)}/`] = String(statSync(path).mode);
  }
  return out;
}

function changes(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k} ${before[k] === undefined ? "created" : after[k] === undefined ? "removed" : "rewritten"}`);
}

/** The CLI arguments of one grading of the fixture copied to `dir`. */
function testArgs(
  fixture: LoadedFixture,
  dir: string,
  deliverable: string | undefined,
  task = fixture.spec.grade!.task,
  remote = false,
): string[] {
  const grade = fixture.spec.grade!;
  const args = ["test", join(dir, task), "--json", "--no-record"];
  if (grade.samples) args.push("--samples", join(dir, grade.samples));
  else args.push("--deliverable", join(dir, deliverable!));
  // With --server the server decides: its oracle.jobs is 1 (cases one at a time), a suite's samples spread over its 2 workers.
  if (grade.jobs && !remote) args.push("--jobs", String(grade.jobs));
  return args;
}

function expectMarker(fixture: LoadedFixture, runs: CliRun[]): void {
  const marker = fixture.spec.attack_marker;
  // A refused run ran nothing: where the fixture allows a refusal, there is no marker to see.
  if (!marker || runs.every(refused)) return;
  const seen = runs.some((r) => r.stdout.includes(marker) || r.stderr.includes(marker));
  expect(seen, `${fixture.id}: the attack's marker "${marker}" is in no output: the attack did not run`).toBe(true);
}

interface Row {
  fixture: LoadedFixture;
  level: Level;
  user: User;
}

const localRows: Row[] = corpus.flatMap((fixture) =>
  fixture.spec.entry_points.includes("local")
    ? (fixture.spec.levels ?? ["namespaces"]).flatMap((level) => usersHere(fixture.spec.users).map((user) => ({ fixture, level, user })))
    : [],
);

/**
 * The local rows, shard `shard` of `shards` (every shards-th row from the shard-th): the rows are split over test
 * files so vitest runs them beside each other and beside the rest of the suite (one file took 16 minutes in CI).
 */
export function describeLocalGrading(shard: number, shards: number): void {
  const rows = localRows.filter((_row, index) => index % shards === shard);
  describe(`skillrig test, locally (rows ${shard + 1} of every ${shards})`, () => {
    it.each(rows.map((r) => [`${r.fixture.id} at ${r.level} as ${r.user}`, r] as const))("%s", async (_name, row) => {
      const { fixture, level, user } = row;
      if (!machineLevels.has(level))
        throw new Error(`sandbox level ${level} is not available on this machine; the corpus names it for ${fixture.id}`);
      const ws: Workspace = workspace(user);
      const dir = copyFixture(fixture, ws);
      const runs: CliRun[] = [];
      const problems: string[] = [];
      for (const [index, step] of (fixture.spec.grade!.before ?? []).entries()) {
        const holdsHome = step.home_untouched === true || (Array.isArray(step.home_untouched) && step.home_untouched.includes(ws.user));
        const home = holdsHome ? snapshot(ws.home) : undefined;
        const run = await runCli(ws, [...testArgs(fixture, dir, step.deliverable, step.task), "--sandbox-level", step.level], dir);
        runs.push(run);
        if (step.verdict) {
          const checked = checkGrading(run, step.verdict);
          problems.push(...checked.problems.map((p) => `before[${index}] (${step.level}): ${p} [${checked.observed}]`));
        }
        if (home)
          problems.push(...changes(home, snapshot(ws.home)).map((c) => `before[${index}] (${step.level}) wrote the runner's HOME: ${c}`));
      }
      const run = await runCli(ws, [...testArgs(fixture, dir, fixture.spec.grade!.deliverable), "--sandbox-level", level], dir);
      runs.push(run);
      const verdict = verdictFor(fixture.spec, { entry_point: "local", level, user });
      const checked = checkGrading(run, verdict);
      problems.push(...checked.problems);
      // At a weak level the code can reach the hidden tests: every report of a run there must say so.
      if (level !== "namespaces" && !refused(run) && reachable(run) !== true)
        problems.push(`graded at ${level} without hidden_tests_reachable: true in the report`);
      logRow({ fixture: fixture.id, entry_point: "local", level, user, ok: problems.length === 0, problems, observed: checked.observed });
      expectMarker(fixture, runs);
      expect(problems, `${fixture.id} local at ${level} as ${user}: observed ${checked.observed}`).toEqual([]);
    });
  });
}

// Each backend as root; the sqlite server also as uid 65534, for the fixtures that name that user.
const SERVERS: Array<[Backend, User]> = isRoot
  ? [
      ["sqlite", "root"],
      ["redis", "root"],
      ["sqlite", "nonroot"],
    ]
  : [
      ["sqlite", "nonroot"],
      ["redis", "nonroot"],
    ];

/** The servers of file `part`: the first (sqlite) in one file, the others in another, so the two run side by side. */
export function serversOfPart(part: "first" | "rest"): Array<[Backend, User]> {
  return part === "first" ? SERVERS.slice(0, 1) : SERVERS.slice(1);
}

/** Every fixture's `--server` rows and raw HTTP attacks against one real `skillrig serve` per backend and user. */
export function describeServerGrading(servers: Array<[Backend, User]>): void {
  describe.each(servers)("skillrig test --server, %s backend, server and CLI as %s", (backend, user) => {
    const forUser = (f: LoadedFixture) => usersHere(f.spec.users).includes(user);
    const rows = corpus.filter((f) => f.spec.entry_points.includes(`server-${backend}`) && forUser(f));
    const httpRows = httpCorpus.filter((f) => f.spec.entry_points.includes(`http-${backend}`) && forUser(f));
    let redis: Redis | undefined;
    let serve: Serve;
    let ws: Workspace;
    beforeAll(async () => {
      if (rows.length + httpRows.length === 0) return;
      ws = workspace(user);
      if (backend === "redis") redis = await startRedis(ws.dir);
      serve = await startServe(ws, backend, redis);
    }, 240_000);
    afterAll(async () => {
      await serve?.stop();
      await redis?.stop();
    });

    it.each(rows.map((f) => [f.id, f] as const))("%s", async (_name, fixture) => {
      const dir = copyFixture(fixture, ws, `fixture-${fixture.id.replace("/", "-")}`);
      const run = await runCli(
        ws,
        [...testArgs(fixture, dir, fixture.spec.grade!.deliverable, undefined, true), "--server", serve.url],
        dir,
      );
      const verdict = verdictFor(fixture.spec, { entry_point: `server-${backend}`, level: "namespaces", user });
      const checked = checkGrading(run, verdict);
      logRow({
        fixture: fixture.id,
        entry_point: `server-${backend}`,
        level: "namespaces",
        user,
        ok: checked.problems.length === 0,
        problems: checked.problems,
        observed: checked.observed,
      });
      expectMarker(fixture, [run]);
      expect(checked.problems, `${fixture.id} --server (${backend}): observed ${checked.observed}`).toEqual([]);
      expect(serve.alive(), `the ${backend} server died: ${serve.stderr().slice(-2000)}`).toBe(true);
    });

    // Last, after the gradings: an attack on the server itself may take it down, and that must show as this row failing.
    it.each(httpRows.map((f) => [`${f.id} (raw HTTP)`, f] as const))("%s", async (_name, fixture) => {
      const http = fixture.spec.http!;
      // A fixture that needs a server of its own (tenants, slots) gets one on this backend, stopped after.
      const own = http.server
        ? await startServe(ws, backend, redis, { server: http.server }, [], `serve-${backend}-${fixture.id.replace("/", "-")}`)
        : undefined;
      const target = own ?? serve;
      try {
        const { problems, observed } = await attackServer(fixture, target, own !== undefined);
        logRow({
          fixture: fixture.id,
          entry_point: `http-${backend}`,
          level: "namespaces",
          user,
          ok: problems.length === 0,
          problems,
          observed: observed.join(" | "),
        });
        expect(problems, observed.join("\n")).toEqual([]);
      } finally {
        await own?.stop();
      }
    });

    /** Sends the fixture's requests to `target`, then `after`; what went wrong and what was seen. */
    async function attackServer(
      fixture: LoadedFixture,
      target: Serve,
      ownServer: boolean,
    ): Promise<{ problems: string[]; observed: string[] }> {
      const http = fixture.spec.http!;
      const problems: string[] = [];
      const observed: string[] = [];
      // A job of the server's own for the routes that name one (created with the server's own Host); a server of
      // the fixture's own may have tokens, so it gets none.
      let job = "";
      if (!ownServer) {
        const created = await send(target.url, "POST", "/v1/oracle/runs", {}, JSON.stringify({ task: SMALL_TASK }));
        expect(created.status, created.body).toBe(201);
        job = (JSON.parse(created.body) as { id: string }).id;
      }
      const attackJobs: string[] = [];
      const context = { dataDir: target.dataDir, named: new Map<string, { id: string; headers: Record<string, string> }>() };
      for (const spec of http.requests) {
        const result = await sendSpec(target.url, fixture, spec, job, context);
        problems.push(...result.problems);
        observed.push(result.observed);
        if (result.created) attackJobs.push(result.created);
      }
      problems.push(...(await checkStartOrder(target.url, http, context.named)));
      if (http.restart_with_requeue) {
        if (!target.alive()) problems.push(`the server process died: ${target.stderr().slice(-1500)}`);
        // Started again on the same data, requeueing what was running: it must not die again on the same job.
        await serve.stop();
        serve = await startServe(ws, backend, redis, {}, ["--on-restart", "requeue"]);
        target = serve;
        for (const id of attackJobs) problems.push(...(await waitForFinal(target.url, id, "restarted with --on-restart requeue,")));
      }
      const after = await sendSpec(target.url, fixture, http.after, job);
      problems.push(...after.problems.map((p) => `after the attack: ${p}`));
      if (!target.alive()) problems.push(`the server process died: ${target.stderr().slice(-1500)}`);
      return { problems, observed };
    }
  });
}

const SMALL_TASK = {
  contract_version: "1.0",
  task_id: "corpus-job",
  deliverable_type: "function",
  entrypoint: "solve",
  tests: [{ name: "one", input: [1], expected: 1 }],
};
