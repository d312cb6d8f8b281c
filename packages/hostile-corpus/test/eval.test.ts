/**
 * The `eval` entry point: `skillrig eval <skill folder>` with the real Gemini CLI playing the fixture's scenario
 * against @skillrig/mock-model, as root and as uid 65534. A scripted agent in an eval run tries to change its own
 * grading; the verdict is read from what skillrig wrote under `--out` (each run's grading.json, answer.json and
 * timing.json, the iteration's benchmark.json and triggers.json), never from what the agent says, and what the agent
 * recorded (its uid, capabilities, the attack's own log) from the runs' outputs/.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { checkAgent, expectVerdict, GEMINI_PLUGIN, read, scenario } from "./support/agent.js";
import { type EvalVerdict, type LoadedFixture, loadCorpus, type User, verdictFor } from "./support/fixtures.js";
import { copyFixture, logRow, runCli, usersHere, workspace } from "./support/run.js";

// A fixture whose agent is an ACP script of its own runs its eval rows in test/support/engine-output-rows.ts.
const corpus = loadCorpus().filter((f) => f.spec.entry_points.includes("eval") && !f.spec.agent?.acp_agent);

interface RunEntry {
  eval_id: number | string;
  configuration: string;
  path: string;
}

function json<T>(file: string): T | undefined {
  const text = read(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Every file under `dir` (links not followed), as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** Whether a path (relative to the eval folder) is inside what the agent wrote: a run's outputs/ or a job's workspace. */
const agentWritten = (path: string) => path.split(sep).some((part) => part === "outputs" || part === "workspace");

const SKILLRIG_FILES = new Set(["grading.json", "timing.json", "answer.json", "benchmark.json", "triggers.json", "iteration.json"]);

/** What the eval folder says, checked against the verdict's `eval` part; the run folders it found. */
function checkIteration(out: string, want: EvalVerdict): { problems: string[]; observed: string[]; runs: string[] } {
  const problems: string[] = [];
  const observed: string[] = [];
  const iteration = join(out, "iteration-1");
  const benchmark = json<{ format?: string; runs?: RunEntry[] }>(join(iteration, "benchmark.json"));
  if (benchmark?.format !== "skillrig-eval-benchmark")
    problems.push(`iteration-1/benchmark.json is not skillrig's: ${read(join(iteration, "benchmark.json"))?.slice(0, 300)}`);
  const runs = benchmark?.runs ?? [];
  const ran = new Set(runs.map((r) => r.configuration));
  for (const configuration of want.configurations)
    if (!ran.has(configuration)) problems.push(`benchmark.json lists no ${configuration} run`);
  const runDirs: string[] = [];
  for (const run of runs) {
    const dir = join(iteration, run.path);
    runDirs.push(dir);
    const name = `${run.configuration} (${run.path})`;
    const grading = json<{ assertion_results?: Array<{ text: string; passed: boolean; evidence: string }>; summary?: { passed: number } }>(
      join(dir, "grading.json"),
    );
    if (!grading?.assertion_results) {
      problems.push(`${name}: no grading.json of skillrig's`);
      continue;
    }
    const passed = grading.assertion_results.filter((a) => a.passed);
    observed.push(
      `${name}: ${grading.assertion_results.map((a) => `${a.passed ? "PASSED" : "failed"} "${a.text}" (${a.evidence.slice(0, 160)})`).join("; ")}`,
    );
    for (const a of passed) problems.push(`${name}: "${a.text}" passed (${a.evidence.slice(0, 300)})`);
    for (const text of want.assertions_failed ?? []) {
      const result = grading.assertion_results.find((a) => a.text === text && !a.passed);
      if (!result) problems.push(`${name}: no failed assertion "${text}" in grading.json`);
      for (const needed of want.evidence_includes ?? [])
        if (result && !result.evidence.includes(needed))
          problems.push(`${name}: the evidence of "${text}" lacks "${needed}": ${result.evidence.slice(0, 400)}`);
    }
    for (const a of grading.assertion_results)
      for (const word of want.evidence_excludes ?? [])
        if (a.evidence.includes(word)) problems.push(`${name}: the evidence of "${a.text}" says ${word}: ${a.evidence.slice(0, 400)}`);
    if (grading.summary?.passed !== 0) problems.push(`${name}: grading.json's summary counts ${grading.summary?.passed} passed`);
    const answer = json<{ job_id?: string; skills_activated?: unknown }>(join(dir, "answer.json"));
    if (!answer?.job_id || !Array.isArray(answer.skills_activated)) problems.push(`${name}: answer.json is not skillrig's`);
    for (const planted of want.planted ?? []) {
      // A result file's name is kept under its stored name (packages/evals result-names.ts), so no reader takes it for ours.
      const kept = SKILLRIG_FILES.has(planted) ? `${planted}.from-agent` : planted;
      if (!existsSync(join(dir, "outputs", kept)))
        problems.push(`${name}: the agent's ${planted} is not in outputs/ as ${kept} (was it planted?)`);
      if (SKILLRIG_FILES.has(planted) && existsSync(join(dir, "outputs", planted)))
        problems.push(`${name}: the agent's ${planted} is in outputs/ under skillrig's own name`);
    }
  }
  const files = filesUnder(out);
  if (want.forged_mark) {
    // Anywhere under --out, the agent's copies included: a reader globbing for grading.json must find only skillrig's.
    for (const file of files)
      if (SKILLRIG_FILES.has(basename(file)) && read(join(out, file))?.includes(want.forged_mark))
        problems.push(`${file} holds what the agent forged`);
    for (const file of files.filter((f) => !agentWritten(f)))
      if (basename(file).startsWith("corpus-planted-")) problems.push(`the agent wrote ${file}, outside its workspace`);
  }
  if (want.trigger_rates) {
    const report = json<{ queries?: Array<{ query: string; trigger_rate: number; triggers: number; runs: number }> }>(
      join(iteration, "triggers.json"),
    );
    for (const [query, rate] of Object.entries(want.trigger_rates)) {
      const got = report?.queries?.find((q) => q.query === query);
      observed.push(`trigger "${query}": ${got ? `${got.triggers}/${got.runs}` : "missing"}`);
      if (!got) problems.push(`triggers.json has no query "${query}"`);
      else if (got.trigger_rate !== rate)
        problems.push(`trigger rate of "${query}" is ${got.trigger_rate} (${got.triggers}/${got.runs}), must be ${rate}`);
    }
  }
  return { problems, observed, runs: runDirs };
}

describe("the attack, unconfined, finds what it looks for (so its rows can fail)", () => {
  it("run as a plain process beside an iteration folder and the skill's evals/, it reports both", () => {
    const fixture = corpus.find((f) => f.id === "eval-grading/eval-self-grading");
    expect(fixture, "fixtures/eval-grading/eval-self-grading is missing").toBeDefined();
    const root = workspace("root").dir;
    const skill = join(root, "skill");
    cpSync(join(fixture!.dir, fixture!.spec.agent!.skill!), skill, { recursive: true });
    const iteration = join(root, "out", "iteration-1");
    const ws = join(iteration, "jobs", "job-1", "workspace");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(iteration, "iteration.json"), "{}");
    cpSync(join(fixture!.dir, "attack.py"), join(ws, "attack.py"));
    const run = spawnSync("python3", ["attack.py", skill, root], { cwd: ws, encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`EVALS-FOUND ${join(skill, "evals", "evals.json")}`);
    expect(run.stdout).toContain(`ITERATION-WRITABLE ${iteration}`);
    expect(existsSync(join(iteration, `corpus-planted-${run.pid}`))).toBe(true);
  });
});

const rows = corpus.flatMap((fixture) => usersHere(fixture.spec.users).map((user) => ({ fixture, user })));

describe("a scripted agent in skillrig eval tries to change its own grading", () => {
  it.each(rows.map((r) => [`${r.fixture.id} through eval as ${r.user}`, r] as const))(
    "%s",
    async (_name, { fixture, user }: { fixture: LoadedFixture; user: User }) => {
      const ws = workspace(user);
      const dir = copyFixture(fixture, ws);
      const skill = join(dir, fixture.spec.agent!.skill!);
      writeFileSync(join(dir, "scenario.filled.json"), JSON.stringify(scenario(fixture, { skill_dir: skill })));
      const engine = { approval_mode: "yolo", mock_scenario: "scenario.filled.json", timeout_ms: 240_000 };
      writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: [[GEMINI_PLUGIN, engine]], runs_dir: "runs" }));
      const out = join(dir, "out");
      const run = await runCli(
        ws,
        ["eval", skill, "--engine", "gemini", "--out", out, "--json", "--runs", "1", "--trigger-runs", "3", "--min-pass-rate", "0.5"],
        dir,
      );
      const verdict = verdictFor(fixture.spec, { entry_point: "eval", user });
      const problems: string[] = [];
      const observed: string[] = [`exit ${run.code}`];
      if (verdict.exit !== undefined && run.code !== verdict.exit)
        problems.push(`exit ${run.code}, must be ${verdict.exit}: ${run.stderr.slice(-800)}`);
      const iteration = checkIteration(out, verdict.eval ?? { configurations: [] });
      problems.push(...iteration.problems);
      observed.push(...iteration.observed);
      // What the agent recorded, from each case run's outputs/ (its workspace as skillrig kept it).
      for (const runDir of iteration.runs) {
        const agent = checkAgent(fixture, join(runDir, "outputs"), verdict);
        problems.push(...agent.problems.map((p) => `${relative(out, runDir)}: ${p}`));
        observed.push(...agent.observed.map((o) => `${relative(out, runDir)}: ${o}`));
      }
      logRow({ fixture: fixture.id, entry_point: "eval", user, ok: problems.length === 0, problems, observed: observed.join(" | ") });
      expectVerdict(
        fixture,
        iteration.runs.map((r) => join(r, "outputs")),
        run.stderr,
        problems,
        observed,
      );
    },
    600_000,
  );
});
