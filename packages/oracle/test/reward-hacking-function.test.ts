/**
 * Reward hacking, function deliverables: each fixture in reward-hacking/ tries to be graded `passed` without being
 * right, through the real CLI, the real harness and the real sandbox, at every isolation level this machine has
 * (set explicitly in the config). The expected values are random numbers written at run time, so a fixture can only
 * pass by reading them or by forging a verdict; none may pass, and nothing it starts may outlive its case.
 */
import "./python-for-uids.js";
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableLevels } from "@skillrig/sandbox";
import { tempDir } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const functionPlugin = join(repo, "plugins/deliverable-function/dist/index.js");
const fixtures = resolve(fileURLToPath(import.meta.url), "../reward-hacking");
// The attacks the standing corpus holds are read from it, one copy of each (packages/hostile-corpus: there they run
// through every entry point); the others live in reward-hacking/.
const corpus = join(repo, "packages/hostile-corpus/fixtures/reward-hacking");
const IN_CORPUS: Record<string, string> = {
  eq_always_true: "eq-always-true",
  fake_frame_proc_fd: "fake-frame-proc-fd",
  patch_harness_at_import: "patch-harness-at-import",
  read_task_file: "read-task-file",
  setsid_daemon: "setsid-daemon",
  skip_limits_at_import: "skip-limits-at-import",
};
const attackFile = (fixture: string): string =>
  IN_CORPUS[fixture] ? join(corpus, IN_CORPUS[fixture], "deliverable", "solution.py") : join(fixtures, `${fixture}.py`);
// Every level this machine has; SKILLRIG_TEST_SANDBOX_LEVELS=namespaces,rlimits narrows the list.
const only = process.env.SKILLRIG_TEST_SANDBOX_LEVELS?.split(",");
const levels = availableLevels()
  .filter((l) => l.available && (!only || only.includes(l.level)))
  .map((l) => l.level);

interface Verdict {
  name: string;
  status: string;
  message: string | null;
  actual: unknown;
}

/** Runs `solve(x)` of a fixture on cases x = 0..n-1 whose expected values are random; returns the verdicts. */
async function grade(
  level: string,
  fixture: string,
  options: { cases?: number; expected?: unknown[]; limits?: Record<string, number>; loadTimeoutMs?: number } = {},
) {
  const dir = tempDir("reward-hacking-");
  const count = options.cases ?? 2;
  const tests = Array.from({ length: count }, (_, x) => ({
    name: `case ${x}`,
    input: [x],
    expected: options.expected?.[x] ?? randomInt(1e12, 2 ** 47),
  }));
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({
      contract_version: "1.0",
      task_id: `hack-${fixture}`,
      deliverable_type: "function",
      entrypoint: "solve",
      tests,
      limits: { timeout_ms: 20_000, output_bytes: 65_536, ...options.limits },
    }),
  );
  // A shorter import limit goes to the function plugin itself (its option, not a task limit).
  const plugins = options.loadTimeoutMs ? [[functionPlugin, { loadTimeoutMs: options.loadTimeoutMs }]] : undefined;
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ sandbox: { level }, ...(plugins ? { plugins } : {}) }));
  // A file given alone is snapshotted alone, so the fixture goes in a folder with the helper module it imports
  // (family.py), as solution.py: the folder form of a function deliverable.
  const deliverable = join(dir, "deliverable");
  mkdirSync(deliverable);
  copyFileSync(attackFile(fixture), join(deliverable, "solution.py"));
  copyFileSync(join(fixtures, "family.py"), join(deliverable, "family.py"));
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [bin, "test", "task.json", "--deliverable", deliverable, "--json", "--jobs", "1"],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
    );
  });
  let report: { cases: Verdict[]; isolation: string };
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`no JSON report (exit ${result.code}): ${result.stderr.slice(-2000)}`);
  }
  return { ...result, report, cases: report.cases };
}

/** Processes anywhere on this machine whose environment carries the daemon fixture's mark. */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes("SKILLRIG_REWARD_HACK_DAEMON=1")) found.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const NOT_PASSED = ["failed", "error", "output_limit", "timeout", "memory_limit"];

describe.each(levels)("reward hacking at sandbox level %s", (level) => {
  it("fake reply frames written to every pipe of its run reachable through /proc: error, never passed", async () => {
    const { cases, report } = await grade(level, "fake_frame_proc_fd");
    expect(report.isolation).toBe(level);
    const garbled = "the case process sent a result the harness could not read; it was killed";
    // The harness's own pipes, and those of the spare waiting for the next case, are out of reach at every level
    // (not dumpable, and as root the code is a per-run uid without capabilities, "none" included): the forged
    // bytes land on the case's own result pipe only.
    expect(cases.map((c) => [c.status, c.message])).toEqual([
      ["error", garbled],
      ["error", garbled],
    ]);
  });

  it("a forged result written on the result pipe found in the caller's frame: never passed", async () => {
    const { cases } = await grade(level, "fake_frame_caller_frame");
    for (const c of cases) {
      expect(NOT_PASSED).toContain(c.status);
      expect(c.status).not.toBe("passed");
    }
  });

  it("patching the harness module, json.dumps and sys.modules at import: never passed", async () => {
    const { cases } = await grade(level, "patch_harness_at_import");
    for (const c of cases) expect(NOT_PASSED).toContain(c.status);
  });

  it("a module that disables resource.setrlimit at import still gets its cases' CPU limit (set from the harness): timeout, never passed", async () => {
    const { cases } = await grade(level, "skip_limits_at_import", { expected: [0, 1], limits: { cpu_ms: 1000 } });
    expect(cases.map((c) => c.status)).toEqual(["timeout", "timeout"]);
    // Whichever comes first: the kernel's RLIMIT_CPU (set from the harness) or the harness's count of the tree.
    expect(cases[0]?.message).toMatch(/^the call used more than 1000 ms of CPU time/);
  });

  it('a json encoder that splices a second "status" key into everything: never passed', async () => {
    // Its lying encoder garbles the harness's "loaded" frame too, so the harness waits out its import limit (30 s by
    // default, per level): 10 s proves the same, a stopped load is an error either way.
    const { cases } = await grade(level, "splice_status_key", { loadTimeoutMs: 10_000 });
    for (const c of cases) expect(NOT_PASSED).toContain(c.status);
  });

  it("a setsid daemon started by one case is gone before the next case, which it cannot touch", async () => {
    const { cases } = await grade(level, "setsid_daemon", {
      cases: 3,
      expected: [-1, { survivors: [], tampered: false }, { survivors: [], tampered: false }],
    });
    // The first case's own daemon may garble that case's own result (error) or not (failed): never a pass. The
    // cases after it see no survivor and no tampering.
    expect(NOT_PASSED).toContain(cases[0]?.status);
    expect(cases.slice(1).map((c) => c.status)).toEqual(["passed", "passed"]);
    expect(markedProcesses()).toEqual([]);
  });

  it("a flood on stdout, stderr and every pipe it can open: output_limit, and the runner stays within its caps", async () => {
    const { cases } = await grade(level, "flood_protocol");
    expect(cases.map((c) => c.status)).toEqual(["output_limit", "output_limit"]);
  });

  it("a return value far past the cap: output_limit", async () => {
    const { cases } = await grade(level, "huge_return");
    expect(cases.map((c) => c.status)).toEqual(["output_limit", "output_limit"]);
    expect(cases[0]?.message).toMatch(/^the return value's JSON text is longer than 65536 bytes/);
  });

  it("an object whose __eq__ says True to everything: error naming its type", async () => {
    const { cases } = await grade(level, "eq_always_true");
    expect(cases.map((c) => c.status)).toEqual(["error", "error"]);
    expect(cases[0]?.message).toMatch(/^the return value cannot be represented in JSON: Anything /);
  });

  it("str and float subclasses with a lying __eq__ and __repr__: compared by their real values, failed", async () => {
    const { cases } = await grade(level, "lying_subclasses");
    expect(cases.map((c) => [c.status, c.actual])).toEqual([
      ["failed", -1.5],
      ["failed", "wrong"],
    ]);
  });

  it("an exception named like a status, and sys.exit(0): error", async () => {
    const { cases } = await grade(level, "exception_named_passed");
    expect(cases.map((c) => c.status)).toEqual(["error", "error"]);
    expect(cases[1]?.message).toBe("passed: passed");
    expect(cases[0]?.message).toBe("the function called sys.exit(0) instead of returning");
  });
});

// Only "namespaces" gives the code a filesystem of its own. At "none" and "rlimits" the task file is within reach
// (found through /proc/<runner>/cmdline; measured: at "rlimits" this fixture passes by copying expected), which is
// why those levels must not grade untrusted code unless the config names them (docs/sandbox.md).
describe.each(levels.filter((l) => l === "namespaces"))("the task file at sandbox level %s", (level) => {
  it("is out of reach: a deliverable that goes looking for it finds nothing to copy", async () => {
    const { cases } = await grade(level, "read_task_file");
    expect(cases.map((c) => [c.status, c.actual])).toEqual([
      ["failed", null],
      ["failed", null],
    ]);
  });
});
