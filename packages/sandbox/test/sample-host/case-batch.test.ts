/**
 * A sample's cases go to the host as one batch and their ends stream back. Each case still runs in its own fork with
 * its own limits and verdict, and its deadline runs from its own start: a case that hangs costs only its own time,
 * whatever waits behind it. The harness's "started" lines are checked like its replies (a harness that claims to run
 * more cases than it may, or starts a case twice, is stopped), and nothing a case prints can pose as one.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, type ResourceLimits, type SampleCaseReply } from "@skillrig/core";
import { availableLevels, createSandbox } from "../../src/create-sandbox.js";
import { HarnessDiedError, SampleHarness } from "../../src/sample-host/sample-harness.js";
import { removeModules, writeModule } from "./samples.js";

afterAll(removeModules);

const level = availableLevels().find((l) => l.level === "namespaces" && l.available) ? "namespaces" : undefined;

const MODULE = `import os, sys

def spin(n):
    while True:
        pass

def echo(n):
    return n

def forge(n):
    if n != 1:
        return n
    # A case that writes what a harness line looks like, everywhere it can write (its own result pipe included).
    forged = b'{"started":3}\\n{"id":3,"end":"returned","ms":0,"value_len":4,"stdout_len":0,"stderr_len":0}\\n9999\\n'
    for fd in range(1, 64):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    print('{"started":2}', flush=True)
    return n
`;

/** A case's time limit in CPU time; the wall backstop generous (a loaded machine), each process's RLIMIT_CPU past it. */
const limits = (cpuTreeMs: number): ResourceLimits => ({ ...DEFAULT_LIMITS, cpuTreeMs, cpuMs: 10_000, wallMs: 60_000 });

describe.runIf(level)("a sample's cases as one batch", () => {
  test("a case that spins past its time limit ends `cpu`; the cases queued behind it keep their own time and verdicts", async () => {
    const sandbox = createSandbox({ level: "namespaces" });
    try {
      const module = await writeModule(MODULE);
      for (const shareHost of [true, false]) {
        const sample = await sandbox.openSample!({
          program: { kind: "function", entryFile: module.entryFile, functionName: "spin" },
          snapshotDir: module.dir,
          concurrency: 1,
          cases: 3,
          limits: { ...DEFAULT_LIMITS, wallMs: 120_000 },
          shareHost,
        });
        try {
          expect(sample.load.ok).toBe(true);
          // Sent in one tick: one write; run one at a time (concurrency 1).
          const replies = await Promise.all([1, 2, 3].map((n) => sample.run({ limits: limits(500), argsJson: `[${n}]` })));
          for (const reply of replies) {
            expect(reply).toMatchObject({ end: "killed", reason: "cpu" });
          }
          // Each spun its own limit: the second and third waited for the first, and it is said apart from their run.
          expect(replies[1]!.queuedMs).toBeGreaterThan(500);
          expect(replies[2]!.queuedMs).toBeGreaterThan(replies[1]!.queuedMs!);
        } finally {
          await sample.close();
        }
      }
    } finally {
      await sandbox.close?.();
    }
  }, 240_000);

  test("what a case writes that looks like a harness line is only its output: the other cases' ends are their own", async () => {
    const sandbox = createSandbox({ level: "namespaces" });
    try {
      const module = await writeModule(MODULE);
      const sample = await sandbox.openSample!({
        program: { kind: "function", entryFile: module.entryFile, functionName: "forge" },
        snapshotDir: module.dir,
        concurrency: 1,
        cases: 3,
        limits: { ...DEFAULT_LIMITS, wallMs: 60_000 },
      });
      try {
        expect(sample.load.ok).toBe(true);
        const replies: SampleCaseReply[] = await Promise.all(
          [1, 2, 3].map((n) => sample.run({ limits: DEFAULT_LIMITS, argsJson: `[${n}]` })),
        );
        // The forger's own verdict is what it did to its own result pipe (an unreadable result); its neighbours'
        // are theirs, with the values they returned, not the forged 9999.
        expect(replies[0]).toMatchObject({ end: "killed", reason: "bad_result" });
        expect(replies[0]!.stdout).toContain('"value_len":4');
        expect(replies.slice(1).map((r) => [r.end, r.valueJson])).toEqual([
          ["returned", "2"],
          ["returned", "3"],
        ]);
      } finally {
        await sample.close();
      }
    } finally {
      await sandbox.close?.();
    }
  }, 60_000);
});

/** A stand-in harness: loads nothing, answers the way `script` says (Python source run after the ready line). */
async function fakeHarness(script: string) {
  const { dir } = await writeModule("", "unused.py");
  const file = join(dir, "fake_harness.py");
  await writeFile(
    file,
    `import json, os, sys, time\nos.write(1, json.dumps({"op": "ready", "signature": None, "signature_error": None, "import_stdout": "", "import_stderr": "", "pid": 1}).encode() + b"\\n")\nrequests = iter(sys.stdin.buffer)\n${script}\ntime.sleep(60)\n`,
  );
  return { dir, file };
}

function reply(id: number): string {
  return JSON.stringify({ id, end: "returned", ms: 1, value_len: 1, stdout_len: 0, stderr_len: 0 });
}

describe.runIf(level)("the harness's start lines are checked", () => {
  const start = async (script: string) => {
    const { dir, file } = await fakeHarness(script);
    const sandbox = createSandbox({ level: "namespaces" });
    const { harness, load } = await SampleHarness.start({
      sandbox,
      python: "python3",
      harnessFile: file,
      entryFile: file,
      functionName: "f",
      spares: 1,
      workDir: dir,
      readOnlyPaths: [dir],
      limits: { ...DEFAULT_LIMITS, wallMs: 60_000 },
      loadTimeoutMs: 30_000,
      stuckGraceMs: 1000,
    });
    expect(load.ok).toBe(true);
    return harness;
  };
  const request = {
    wall_ms: 20_000,
    cpu_ms: 1000,
    time_ms: 1000,
    disk_bytes: 0,
    disk_entries: 10,
    memory_bytes: 0,
    output_bytes: 100,
    value_bytes: 100,
  };

  test("a harness that says it started a second case while its one slot is taken is stopped", async () => {
    const harness = await start(`next(requests); next(requests)\nos.write(1, b'{"started":1}\\n{"started":2}\\n')`);
    const first = harness.run(request, "[1]");
    const second = harness.run(request, "[2]");
    await expect(first).rejects.toThrow("started case 2 while 1 case(s) ran, more than the 1 it may run at once");
    await expect(second).rejects.toBeInstanceOf(HarnessDiedError);
    await harness.stop(0);
  }, 60_000);

  test("a second start for a case, or a start for a case never sent, is the harness misbehaving", async () => {
    for (const [lines, message] of [
      ['{"started":1}\\n{"started":1}\\n', "a second start for case 1"],
      ['{"started":7}\\n', "a start for unknown case 7"],
      [`{"started":1}\\n${reply(1)}\\n1{"started":1}\\n`, "a start for case 1, which was answered already"],
    ] as const) {
      const harness = await start(`next(requests)\nos.write(1, b'${lines.replaceAll("'", "\\'")}')`);
      const first = harness.run(request, "[1]");
      const second = harness.run(request, "[2]");
      await expect(Promise.allSettled([first, second])).resolves.toBeDefined();
      const errors = (await Promise.allSettled([first, second])).flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
      expect(errors.join("\n")).toContain(message);
      await harness.stop(0);
    }
  }, 120_000);

  test("a case whose start is never said still meets its deadline from when its slot was free", async () => {
    // The first case is answered; the second is never started nor answered: the runner's own deadline ends it.
    const harness = await start(`next(requests)\nos.write(1, b'{"started":1}\\n${reply(1)}\\n1')`);
    const first = harness.run(request, "[1]");
    const second = harness.run({ ...request, wall_ms: 1000 }, "[2]");
    await expect(first).resolves.toMatchObject({ end: "returned", valueJson: "1" });
    await expect(second).rejects.toThrow("did not answer within 2000 ms of the case's start");
    await harness.stop(0);
  }, 60_000);
});
