/**
 * Script and cli cases through the sample host (`Sandbox.openSample`, kind `main`) must get the verdicts a process
 * per case gets. Each task below is graded twice by the real runner: with @skillrig/sandbox as it is (script and cli
 * cases go to the sample host) and with the same sandbox minus `openSample` (a sandboxed `python3` per case, the
 * path a sandbox without a host keeps). Statuses, messages and what the code did must be the same; a case that
 * reports `sys.flags.no_site` proves which path ran.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Runner, Sandbox, SkillrigPlugin, TestCase } from "@skillrig/core";
import { createSandbox } from "@skillrig/sandbox";
import { makeRunner, runTaskWith, scriptTask, tempDir } from "./helpers.js";

/** The default sandbox without its sample host: every process case is a process of its own. */
function withoutSampleHost(): SkillrigPlugin {
  return {
    name: "test-sandbox-without-sample-host",
    apply(runner: Runner) {
      let sandbox: Sandbox | undefined;
      runner.hooks.sandbox.tap("test-sandbox-without-sample-host", () => {
        if (!sandbox) {
          const real = createSandbox(runner.config.sandbox);
          sandbox = Object.create(real, { openSample: { value: undefined } }) as Sandbox;
        }
        return sandbox;
      });
    },
  };
}

const hosted = makeRunner();
const processes = makeRunner([withoutSampleHost()]);

/** What a case did, with the program's own path taken out of tracebacks (the host runs its own copy of the file). */
function comparable(report: Awaited<ReturnType<typeof runTaskWith>>["report"]) {
  const strip = (text: unknown) => (typeof text === "string" ? text.replace(/File "[^"]*\/main\.py"/g, 'File "main.py"') : text);
  return report.cases
    .filter((c) => c.name !== "where")
    .map((c) => {
      const actual = c.actual as Record<string, unknown> | null;
      return {
        name: c.name,
        status: c.status,
        message: strip(c.message),
        actual: actual && { ...actual, stderr: strip(actual.stderr) },
      };
    });
}

async function gradeBothWays(tests: TestCase[], files: Record<string, string>, extra: Record<string, unknown> = {}) {
  const task = scriptTask(tests, { deliverable_type: "cli", ...extra });
  const viaHost = await runTaskWith(task, files, { runner: hosted, jobs: 2 });
  const viaProcesses = await runTaskWith(task, files, { runner: processes, jobs: 2 });
  expect(comparable(viaHost.report)).toEqual(comparable(viaProcesses.report));
  return { viaHost, viaProcesses };
}

describe("cli cases in the sample host get a process's verdicts", () => {
  it("argv, stdin, input files, unicode, files written and deleted; and the host really ran them", async () => {
    const program = `import os, sys
mode = sys.argv[1]
if mode == "where":
    print("host" if sys.flags.no_site else "process")
    sys.exit(0)
text = sys.stdin.read()
print("argv", sys.argv[1:], "stdin", text.upper())
print("ünïcödé ✓", file=sys.stderr)
with open("data/in.txt", encoding="utf-8") as f:
    content = f.read()
os.makedirs("out", exist_ok=True)
with open("out/result.txt", "w", encoding="utf-8") as f:
    f.write(content[::-1])
os.remove("data/gone.txt")
`;
    const { viaHost, viaProcesses } = await gradeBothWays(
      [
        {
          name: "reads and writes",
          input: { argv: ["run", "ä b"], stdin: "héllo", files: { "data/in.txt": "abc✓", "data/gone.txt": "x" } },
          expected: { stdout: "argv ['run', 'ä b'] stdin HÉLLO", files: { "out/result.txt": "✓cba" } },
        },
        {
          name: "a wrong expectation fails the same way",
          input: { argv: ["run"], stdin: "", files: { "data/in.txt": "x", "data/gone.txt": "x" } },
          expected: { stdout: "something else", exit_code: 0 },
        },
        { name: "where", input: { argv: ["where"] }, expected: { stdout: "host" } },
      ],
      { "main.py": program },
    );
    // The one difference on purpose: where it ran ("where" is left out of the comparison). Everything else was equal.
    expect(viaHost.byName.where?.status).toBe("passed");
    expect(viaProcesses.byName.where?.status).toBe("failed");
    expect(viaHost.byName["reads and writes"]?.status).toBe("passed");
    expect((viaHost.byName["reads and writes"]?.actual as { deleted_files?: string[] }).deleted_files).toEqual(["data/gone.txt"]);
  }, 120_000);

  it("exit statuses, an uncaught exception, sys.exit with text, a syntax error", async () => {
    const program = `import sys
mode = sys.argv[1]
print("before", mode)
if mode == "three": sys.exit(3)
if mode == "text": sys.exit("a message on stderr")
if mode == "raise": raise KeyError("missing")
`;
    const tests: TestCase[] = [
      { name: "exit 3 expected", input: { argv: ["three"] }, expected: { stdout: "before three", exit_code: 3 } },
      { name: "exit 3 not expected", input: { argv: ["three"] }, expected: { stdout: "before three" } },
      { name: "text", input: { argv: ["text"] }, expected: { stderr: "a message on stderr", exit_code: 1 } },
      { name: "raise", input: { argv: ["raise"] }, expected: { exit_code: 1 } },
      { name: "normal", input: { argv: ["normal"] }, expected: { stdout: "before normal" } },
    ];
    const { viaHost } = await gradeBothWays(tests, { "main.py": program });
    expect(Object.values(viaHost.byName).map((c) => c.status)).toEqual(["passed", "failed", "passed", "passed", "passed"]);
    expect(viaHost.byName.raise?.actual).toMatchObject({ stderr: expect.stringContaining("KeyError: 'missing'") });
    const broken = await gradeBothWays(tests.slice(3), { "main.py": "print('x')\nif True print(1)\n" });
    expect(broken.viaHost.byName.raise).toMatchObject({
      status: "passed",
      actual: { exit_code: 1, stderr: expect.stringContaining("SyntaxError") },
    });
    expect(broken.viaHost.byName.normal?.status).toBe("failed");
  }, 120_000);

  it("limits: CPU time, output; what a case leaves running; writes outside its folder", async () => {
    const program = `import os, subprocess, sys
mode = sys.argv[1]
if mode == "spin":
    while True:
        pass
if mode == "flood":
    sys.stdout.write("x" * (3 << 20))
if mode == "leave":
    subprocess.Popen(["sleep", "120"])
    print("left")
if mode == "outside":
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        open(os.path.join(here, "planted.py"), "w").write("x")
        print("wrote into the program's folder")
    except OSError:
        print("refused")
`;
    const { viaHost } = await gradeBothWays(
      [
        { name: "spin", input: { argv: ["spin"] }, expected: { exit_code: 0 }, timeout_ms: 400 },
        { name: "flood", input: { argv: ["flood"] }, expected: { exit_code: 0 } },
        { name: "leave", input: { argv: ["leave"] }, expected: { stdout: "left" } },
        { name: "outside", input: { argv: ["outside"] }, expected: { stdout: "refused" } },
      ],
      { "main.py": program },
    );
    expect(Object.values(viaHost.byName).map((c) => c.status)).toEqual(["timeout", "output_limit", "passed", "passed"]);
    // A process it left running is gone with its case: the case did not wait for it.
    expect(viaHost.byName.leave?.duration_ms ?? 0).toBeLessThan(60_000);
  }, 180_000);

  it("limits: memory, file size", async () => {
    const program = `import sys
mode = sys.argv[1]
if mode == "memory":
    hoard = bytearray(3 * 1024 * 1024 * 1024)
    print(len(hoard))
if mode == "big-file":
    with open("big.bin", "wb") as f:
        f.write(b"x" * (2 * 1024 * 1024))
print("done")
`;
    const { viaHost } = await gradeBothWays(
      [
        { name: "memory", input: { argv: ["memory"] }, expected: { stdout: "done" } },
        { name: "big-file", input: { argv: ["big-file"] }, expected: { stdout: "done" } },
        { name: "within", input: { argv: ["within"] }, expected: { stdout: "done" } },
      ],
      { "main.py": program },
      { limits: { file_bytes: 1024 * 1024 } },
    );
    expect(Object.values(viaHost.byName).map((c) => c.status)).toEqual(["memory_limit", "output_limit", "passed"]);
  }, 120_000);

  it("a case that stops its own harness is a timeout at the runner's deadline, never a hang; the next case still runs", async () => {
    // Verdict: timeout for "freeze" (the runner's own deadline: the wall backstop of its 300 ms limit plus the grace),
    // passed for "after" (its lane's sample is started again). In the host a case's parent is its sample's fork
    // server, whose parent is the harness that holds the runner's channel; same uid, so the case can stop it.
    const program = `import os, signal, sys
def parent_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])
if sys.argv[1] == "freeze":
    os.kill(parent_of(os.getppid()), signal.SIGSTOP)
print("ran", sys.argv[1])
`;
    const task = scriptTask(
      [
        { name: "freeze", input: { argv: ["freeze"] }, expected: { stdout: "ran freeze" }, timeout_ms: 300 },
        { name: "after", input: { argv: ["after"] }, expected: { stdout: "ran after" } },
      ],
      { deliverable_type: "cli" },
    );
    const { report } = await runTaskWith(task, { "main.py": program }, { runner: hosted, jobs: 1 });
    expect(report.cases.map((c) => c.status)).toEqual(["timeout", "passed"]);
    expect(report.cases[0]?.message).toMatch(/^timed out after 10300 ms of wall-clock time/);
  }, 120_000);

  it("a case that swaps its own folder for a symlink to a runner-only folder gets nothing read through it", async () => {
    // Verdict: not passed, and the runner-only file's content is nowhere in what the report says the code did. The host path's case folder
    // sits in a folder the sample may write (its working folder), so the program can rename its folder away and leave
    // a symlink in its place; a process case's folder sits in the run's read-only folder, where it cannot.
    const secretDir = tempDir("oracle-runner-only-");
    chmodSync(secretDir, 0o700);
    writeFileSync(join(secretDir, "secret.txt"), "RUNNER-ONLY-SECRET");
    const program = `import os
here = os.getcwd()
print("HOSTILE-RAN case-folder-symlink", file=__import__("sys").stderr)
try:
    os.rename(here, here + "-moved")
    os.symlink(${JSON.stringify(secretDir)}, here)
    print("swapped")
except OSError as exc:
    print("could not swap:", exc.strerror)
`;
    const task = scriptTask([{ name: "swap", input: { argv: [] }, expected: { files: { "secret.txt": "RUNNER-ONLY-SECRET" } } }], {
      deliverable_type: "cli",
    });
    for (const runner of [hosted, processes]) {
      const { report } = await runTaskWith(task, { "main.py": program }, { runner, jobs: 1 });
      expect(report.cases[0]?.status).not.toBe("passed");
      // What the code did (its files, stdout, stderr, details) holds nothing of the runner-only file.
      const { actual, details } = report.cases[0] ?? {};
      expect(JSON.stringify({ actual, details })).not.toContain("RUNNER-ONLY-SECRET");
    }
  }, 120_000);
});
