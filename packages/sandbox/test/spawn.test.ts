/**
 * spawn(): the long-lived process the function plugin talks to over JSON lines. The same limits apply
 * as for run(), kill() takes the whole tree down (detached grandchildren included), and `exited`
 * settles only once the tree is gone. Checked at every level this machine has.
 */
import "./python-for-uids.js";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { SandboxProcess } from "@skillrig/core";
import { availableLevels, createSandbox } from "@skillrig/sandbox";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";

const harnessDir = join(dirname(fileURLToPath(import.meta.url)), "harness");
const root = mkdtempSync(join(tmpdir(), "skillrig-spawn-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function processesWithMarker(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** Sends one request line and waits for one reply line. */
function client(process: SandboxProcess) {
  const lines = createInterface({ input: process.stdout })[Symbol.asyncIterator]();
  return async (request: Record<string, unknown>): Promise<Record<string, unknown>> => {
    process.stdin.write(`${JSON.stringify(request)}\n`);
    const next = await lines.next();
    if (next.done) throw new Error("harness closed its stdout");
    return JSON.parse(next.value) as Record<string, unknown>;
  };
}

const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

describe.each(levels)("spawn() at level %s", (level) => {
  const sandbox = createSandbox({ level });
  const limits = { wallMs: 30_000, memoryBytes: 256 * 1024 * 1024, maxProcesses: 16 };

  it("talks JSON lines, applies the memory limit, and kill() takes down the tree with detached children", async () => {
    const marker = `spawn-${randomUUID()}`;
    const harness = sandbox.spawn({
      command: ["python3", join(harnessDir, "echo_harness.py"), marker],
      cwd: mkdtempSync(join(root, "harness-")),
      readOnlyPaths: [harnessDir],
      limits,
    });
    expect(harness.isolation).toBe(level);
    const ask = client(harness);
    expect(await ask({ op: "echo", value: [1, "two"] })).toEqual({ echo: [1, "two"] });
    if (level !== "none") {
      // Level "none" sets no memory limit: asking for 4 GB there would really take it.
      expect(await ask({ op: "allocate", bytes: 4 * 1024 ** 3 })).toEqual({ error: "MemoryError" });
    }
    expect(await ask({ op: "detach", marker })).toEqual({ detached: true });
    expect(processesWithMarker(marker).length).toBeGreaterThanOrEqual(2); // harness + detached grandchild

    harness.kill();
    const result = await harness.exited;
    expect(processesWithMarker(marker)).toEqual([]);
    expect(result.isolation).toBe(level);
    expect(result.timedOut).toBe(false);
    expect(result.signal).toBe("SIGKILL");
  });

  it("ends at the wall-clock limit like run() does, and closing stdin ends a well-behaved harness", async () => {
    const marker = `spawn-${randomUUID()}`;
    const short = sandbox.spawn({
      command: ["python3", "-c", "import time; time.sleep(60)", marker],
      cwd: mkdtempSync(join(root, "sleep-")),
      limits: { ...limits, wallMs: 500 },
    });
    short.stdout.resume();
    const timedOut = await short.exited;
    expect(timedOut.timedOut).toBe(true);
    expect(processesWithMarker(marker)).toEqual([]);

    // A harness serving a whole task runs without a wall limit of its own (Infinity): only its cases are timed.
    const polite = sandbox.spawn({
      command: ["python3", join(harnessDir, "echo_harness.py")],
      cwd: mkdtempSync(join(root, "polite-")),
      readOnlyPaths: [harnessDir],
      limits: { ...limits, wallMs: Number.POSITIVE_INFINITY },
    });
    polite.stdout.resume();
    polite.stdin.end();
    const ended = await polite.exited;
    expect(ended).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
  });
});

describe.each(levels)("run() at level %s leaves no detached child behind", (level) => {
  const sandbox = createSandbox({ level });

  it("kills a detached child left behind after the code exits, and one alive at the timeout", async () => {
    const leaveChild = (marker: string, thenSleep: boolean) =>
      [
        "import os, sys, time",
        "if os.fork() == 0:",
        "    os.setsid()",
        "    if os.fork() == 0:",
        `        os.execvp(sys.executable, [sys.executable, '-c', 'import time; time.sleep(120)', '${marker}'])`,
        "    os._exit(0)",
        "time.sleep(0.2)",
        thenSleep ? "time.sleep(60)" : "print('left')",
      ].join("\n");
    for (const thenSleep of [false, true]) {
      const marker = `run-${randomUUID()}`;
      const result = await sandbox.run({
        command: ["python3", "-c", leaveChild(marker, thenSleep), marker],
        cwd: mkdtempSync(join(root, "leave-")),
        limits: { wallMs: thenSleep ? 1_000 : 10_000 },
      });
      expect(result.timedOut).toBe(thenSleep);
      if (!thenSleep) expect(result.stdout).toBe("left\n");
      expect(processesWithMarker(marker)).toEqual([]);
    }
  });
});

describe.each(levels)("when the runner itself is killed (level %s)", (level) => {
  it("the sandboxed code dies with it, even by SIGKILL when no exit hook can run", async () => {
    const marker = `orphan-${randomUUID()}`;
    const cwd = mkdtempSync(join(root, "orphan-"));
    const sandboxEntry = join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js"); // this package, built
    // A separate runner process that starts a long sleep in the sandbox, says so, and waits.
    const runnerScript = [
      `import { createSandbox } from ${JSON.stringify(sandboxEntry)};`,
      `const sandbox = createSandbox({ level: ${JSON.stringify(level)} });`,
      // The marker comes through the environment so that only the sandboxed code carries it in its command line.
      `sandbox.run({ command: ["python3", "-c", "import time; time.sleep(120)", process.env.ORPHAN_MARKER], cwd: ${JSON.stringify(cwd)}, limits: { wallMs: 120000 } });`,
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const { spawn } = await import("node:child_process");
    const runner = spawn(process.execPath, ["--input-type=module", "-e", runnerScript], {
      stdio: "ignore",
      env: { ...process.env, ORPHAN_MARKER: marker },
    });
    const deadline = Date.now() + 20_000;
    // Wait for the code itself: the wrappers before it (setpriv, bwrap) carry the marker in their argv too, and
    // the parent-death signal is only armed once setpriv has run.
    const pythonRunning = () => processesWithMarker(marker).some((pid) => commandName(pid).startsWith("python"));
    while (!pythonRunning() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(pythonRunning()).toBe(true);
    runner.kill("SIGKILL");
    await new Promise((r) => runner.once("exit", r));
    const gone = Date.now() + 5_000;
    while (processesWithMarker(marker).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(processesWithMarker(marker)).toEqual([]);
  });
});

describe("spawn() output cap", () => {
  it("caps what passes through the pipes only when the caller sets outputBytes", async () => {
    const sandbox = createSandbox();
    const chatty = sandbox.spawn({
      command: ["python3", "-c", "import sys\nfor _ in range(1000): sys.stdout.write('z' * 1000 + '\\n')"],
      cwd: mkdtempSync(join(root, "chatty-")),
      limits: { wallMs: 30_000, outputBytes: 10_000 },
    });
    let received = 0;
    chatty.stdout.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    const result = await chatty.exited;
    expect(result.outputLimited).toBe(true);
    expect(received).toBeLessThanOrEqual(10_000);
  });
});

/**
 * Not root: bubblewrap makes a user namespace per run, which also makes the process budget per run. Checked
 * by running a small runner as "nobody" (we are root here, so we can).
 */
const unprivilegedRunnable = process.getuid?.() === 0 && existsSync("/usr/bin/python3");
describe.each(unprivilegedRunnable ? ["nobody"] : [])("started as %s instead of root", () => {
  it("still isolates at the namespaces level, or says why not", async () => {
    // Outside our 0700 temp root, which "nobody" could not enter.
    const folder = mkdtempSync(join(tmpdir(), "skillrig-unprivileged-"));
    chmodSync(folder, 0o777);
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const sandboxEntry = join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js");
    const script = [
      `import { createSandbox } from ${JSON.stringify(sandboxEntry)};`,
      "const sandbox = createSandbox();",
      `const forks = "import os\\nok = 0\\nfor _ in range(30):\\n    try:\\n        if os.fork() == 0:\\n            import time; time.sleep(2); os._exit(0)\\n        ok += 1\\n    except OSError:\\n        break\\nimport socket\\ntry:\\n    socket.create_connection(('1.1.1.1', 80), timeout=1); net = 'open'\\nexcept OSError:\\n    net = 'blocked'\\nprint(os.getuid(), ok, net)";`,
      `const result = await sandbox.run({ command: ["python3", "-c", forks], cwd: ${JSON.stringify(folder)}, limits: { wallMs: 20000, maxProcesses: 8 } });`,
      "console.log(JSON.stringify({ isolation: sandbox.isolation, warnings: sandbox.warnings, stdout: result.stdout, stderr: result.stderr }));",
    ].join("\n");
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, "--input-type=module", "-e", script],
      {
        cwd: folder,
        env: { PATH: "/usr/bin:/bin", HOME: folder },
        encoding: "utf8",
      },
    );
    const report = JSON.parse(out) as { isolation: string; warnings: string[]; stdout: string; stderr: string };
    if (report.isolation !== "namespaces") {
      // This kernel does not let unprivileged users make namespaces: the fallback must say so.
      expect(report.warnings.join("\n")).toMatch(/"namespaces" is not available/);
      return;
    }
    expect(report.stderr).toBe("");
    const [uid, forked, net] = report.stdout.trim().split(" ");
    expect(uid).toBe("65534");
    expect(Number(forked)).toBeGreaterThan(0);
    expect(Number(forked)).toBeLessThan(8); // the budget of 8 includes bubblewrap's pid 1 and the code itself
    expect(net).toBe("blocked");
  });
});
