/**
 * Runs the built `skillrig` CLI as a user would, as root or as uid 65534 (setpriv, PATH=/usr/bin:/bin, a HOME of
 * its own), in a temp folder holding a copy of the fixture, and checks what it printed against a verdict.
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { type LoadedFixture, REPO, type Status, type User, type Verdict } from "./fixtures.js";

export const CLI = join(REPO, "packages", "cli", "dist", "bin.js");
export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

/**
 * The users a fixture's rows run as here: as root, those it names; run by a non-root user (a CI runner without
 * root), every fixture runs once, as that user itself (no setpriv), and must get its `nonroot` verdict.
 */
export function usersHere(users: User[] = ["root"]): User[] {
  return isRoot ? users : ["nonroot"];
}

export interface Workspace {
  dir: string;
  home: string;
  user: User;
}

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder (0755) with an empty HOME of its own; owned by uid 65534 for a non-root row. */
export function workspace(user: User): Workspace {
  const dir = mkdtempSync(join(tmpdir(), "hostile-corpus-"));
  created.push(dir);
  chmodSync(dir, 0o755);
  const home = join(dir, "home");
  mkdirSync(home, { mode: 0o700 });
  if (user === "nonroot") chownTree(dir);
  return { dir, home, user };
}

function chownTree(dir: string): void {
  if (!isRoot) return; // already the user the row runs as
  const r = spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, dir], { stdio: "pipe" });
  if (r.status !== 0) throw new Error(`chown -R ${NOBODY} ${dir} failed: ${r.stderr}`);
}

/** Copies the fixture's folder into the workspace (as `fixture/`), readable by the workspace's user. */
export function copyFixture(fixture: LoadedFixture, ws: Workspace, name = "fixture"): string {
  const target = join(ws.dir, name);
  cpSync(fixture.dir, target, { recursive: true });
  if (ws.user === "nonroot") chownTree(target);
  return target;
}

function rootPath(): string {
  const path = process.env.PATH ?? "/bin";
  return existsSync("/usr/bin/python3") && !path.startsWith("/usr/bin:") ? `/usr/bin:${path}` : path;
}

/** The command line and environment that run `argv` as the workspace's user. */
export function asUser(
  ws: Workspace,
  argv: string[],
  env: Record<string, string> = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  if (ws.user === "root" || !isRoot) {
    return {
      command: argv[0]!,
      args: argv.slice(1),
      // As root, the weak levels run the code as a per-run uid that must reach python3 through the host's tree:
      // a pyenv under /root (mode 0700) is refused by name there (packages/sandbox/test/hostile.test.ts), so the
      // corpus gives root Debian's python3 first, as a user who names a weak level would.
      env: { ...process.env, PATH: rootPath(), HOME: ws.home, XDG_CACHE_HOME: join(ws.home, ".cache"), ...env },
    };
  }
  const vars = { PATH: "/usr/bin:/bin", HOME: ws.home, XDG_CACHE_HOME: join(ws.home, ".cache"), LANG: "C.UTF-8", ...env };
  return {
    command: "setpriv",
    args: [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      "env",
      "-i",
      ...Object.entries(vars).map(([k, v]) => `${k}=${v}`),
      ...argv,
    ],
    env: {},
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `skillrig <args>` in `cwd` as the workspace's user. */
export function runCli(ws: Workspace, args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const plan = asUser(ws, [process.execPath, CLI, ...args], env);
  return new Promise((done) => {
    const child = spawn(plan.command, plan.args, { cwd, env: plan.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

interface CaseLike {
  name: string;
  status: string;
}
interface ReportLike {
  cases?: CaseLike[];
  hidden_tests_reachable?: boolean;
  tasks?: Array<{ task_id: string; samples: Array<{ sample: number; status: string; cases?: CaseLike[] }> }>;
  error?: { code?: string; message?: string };
}

/** Every status in a report: case name -> status (one task), or `<task_id>#<sample>[/<case>]` (a suite). */
export function statusesOf(report: ReportLike): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of report.cases ?? []) out[c.name] = c.status;
  for (const task of report.tasks ?? []) {
    for (const sample of task.samples) {
      out[`${task.task_id}#${sample.sample}`] = sample.status;
      for (const c of sample.cases ?? []) out[`${task.task_id}#${sample.sample}/${c.name}`] = c.status;
    }
  }
  return out;
}

const asList = (s: Status | Status[]) => (Array.isArray(s) ? s : [s]);

/** What differs between a CLI run and the verdict it must get (empty: the verdict holds). */
export function checkGrading(run: CliRun, verdict: Verdict): { problems: string[]; observed: string } {
  if (verdict.any_of) {
    const tried = verdict.any_of.map((v) => checkGrading(run, v));
    const met = tried.find((t) => t.problems.length === 0);
    return (
      met ?? {
        problems: [`none of its ${tried.length} allowed verdicts: ${tried.map((t) => t.problems.join(", ")).join(" | ")}`],
        observed: tried[0]!.observed,
      }
    );
  }
  const problems: string[] = [];
  let report: ReportLike | undefined;
  try {
    report = JSON.parse(run.stdout) as ReportLike;
  } catch {
    report = undefined;
  }
  const statuses = report ? statusesOf(report) : {};
  const observed = report
    ? `exit ${run.code}${report.error ? `, refused ${report.error.code}: ${report.error.message}` : ""}${
        Object.keys(statuses).length
          ? `, ${Object.entries(statuses)
              .map(([k, v]) => `${k}=${v}`)
              .join(", ")}`
          : ""
      }${report.hidden_tests_reachable !== undefined ? `, hidden_tests_reachable=${report.hidden_tests_reachable}` : ""}`
    : `exit ${run.code}, no JSON report; stderr: ${run.stderr.slice(-600)}`;
  if (verdict.exit !== undefined && run.code !== verdict.exit) problems.push(`exit ${run.code}, must be ${verdict.exit}`);
  for (const [name, want] of Object.entries(verdict.cases ?? {})) {
    if (!asList(want).includes(statuses[name] as Status))
      problems.push(`${name}: ${statuses[name] ?? "missing"}, must be ${asList(want).join(" or ")}`);
  }
  if (verdict.hidden_tests_reachable !== undefined && (report?.hidden_tests_reachable ?? false) !== verdict.hidden_tests_reachable) {
    problems.push(`hidden_tests_reachable ${report?.hidden_tests_reachable}, must be ${verdict.hidden_tests_reachable}`);
  }
  if (verdict.refused) {
    const error = report?.error;
    if (error?.code !== verdict.refused.code)
      problems.push(`refused with ${error?.code ?? "nothing"}, must be refused with ${verdict.refused.code}`);
    if (verdict.refused.message_matches && !new RegExp(verdict.refused.message_matches, "i").test(error?.message ?? "")) {
      problems.push(`the refusal's message does not match /${verdict.refused.message_matches}/i`);
    }
  }
  return { problems, observed };
}

/** Whether the CLI refused the run (nothing of the attack ran). */
export function refused(run: CliRun): boolean {
  try {
    return run.code === 2 && (JSON.parse(run.stdout) as ReportLike).error !== undefined;
  } catch {
    return false;
  }
}

/** Whether the report says the hidden tests were within the code's reach. */
export function reachable(run: CliRun): boolean | undefined {
  try {
    return (JSON.parse(run.stdout) as ReportLike).hidden_tests_reachable;
  } catch {
    return undefined;
  }
}

/** With HOSTILE_CORPUS_LOG=<file>, every row's outcome is appended there as one JSON line (for a summary). */
export function logRow(row: Record<string, unknown>): void {
  const file = process.env.HOSTILE_CORPUS_LOG;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
