/**
 * The agent jail's bounds with real bubblewrap and a real python3 inside: a fork bomb meets the process limit (its
 * uid's RLIMIT_NPROC: as root a per-run uid, unprivileged a uid counted per user namespace) while a second jail and
 * the runner go on forking; a /tmp filler meets the tmpfs's size (ENOSPC); one huge file meets RLIMIT_FSIZE (EFBIG).
 * Each bomb is itself bounded (it stops at 2,000 forks), so a jail without the limit fails the test, not the machine.
 */
import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentJailLimits } from "@skillrig/core";
import { confineAgent, DEFAULT_AGENT_BOUNDS } from "@skillrig/sandbox";

const MiB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;

function folders() {
  const root = mkdtempSync(join(tmpdir(), "skillrig-agent-bounds-"));
  mkdirSync(join(root, "workspace"));
  mkdirSync(join(root, "engine"));
  return { root, workspace: join(root, "workspace"), engine: join(root, "engine") };
}

function run(
  file: string,
  args: string[],
  env: Record<string, string>,
  onLine?: (line: string, stdin: Writable) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.on("error", () => {}); // the program may end before its stdin does
    if (!onLine) child.stdin.end();
    let stdout = "";
    let stderr = "";
    let partial = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c;
      const lines = (partial + c).split("\n");
      partial = lines.pop() ?? "";
      if (onLine) for (const line of lines) onLine(line, child.stdin);
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs a python3 program in the agent jail with `limits`; its last stdout line is JSON. `onLine` sees each line it
 * prints, with its stdin (the fork bomb holds its processes until its stdin ends).
 */
async function jailedPython(
  program: string,
  limits: AgentJailLimits,
  args: string[] = [],
  onLine?: (line: string, stdin: Writable) => void,
): Promise<Record<string, unknown>> {
  const f = folders();
  const confined = await confineAgent({
    command: ["python3", "-c", program, ...args],
    workspace: f.workspace,
    writable: [f.engine],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    limits,
  });
  try {
    expect(confined.isolation).toBe("namespaces");
    const r = await run(confined.file, confined.args, confined.env, onLine);
    const last = r.stdout.trim().split("\n").pop() ?? "";
    expect(last.startsWith("{"), `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(true);
    return { ...(JSON.parse(last) as Record<string, unknown>), workspace: f.workspace };
  } finally {
    await confined.close();
  }
}

/**
 * Forks up to `argv[1]` children (2,000 when not given), each holding its process until the bomb lets go (the end of
 * a pipe only the bomb keeps open), and reports how many it got and the errno that stopped it. With `hold` it then
 * keeps them until its stdin ends: the test runs its neighbours while the bomb is at its limit, not after a guess.
 */
const FORK_BOMB = String.raw`
import os, sys, json
count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
held, release = os.pipe()
pids, err = [], None
for i in range(count):
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        os.close(release)
        os.close(1)
        os.read(held, 1)
        os._exit(0)
    pids.append(pid)
visible = sum(1 for p in os.listdir("/proc") if p.isdigit())
print(json.dumps({"forked": len(pids), "errno": err, "visible": visible}), flush=True)
if "hold" in sys.argv[2:]:
    sys.stdin.read()
os.close(release)
`;

/** Writes 1 MiB at a time to `path` until refused (at most 64 MiB); reports what it wrote and the errno. */
const FILLER = String.raw`
import os, sys, json, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
path, written, err = sys.argv[1], 0, None
chunk = b"x" * (1024 * 1024)
try:
    with open(path, "wb", buffering=0) as f:
        while written < 64 * 1024 * 1024:
            written += f.write(chunk)
except OSError as e:
    err = e.errno
print(json.dumps({"written": written, "errno": err}), flush=True)
`;

describe("agent jail bounds", () => {
  it("a fork bomb meets the process limit; a second jail and the runner still fork meanwhile", async () => {
    let neighbours: Promise<[Record<string, unknown>, { stdout: string }]> | undefined;
    const report = await jailedPython(FORK_BOMB, { processes: 64 }, ["2000", "hold"], (line, stdin) => {
      // The bomb is at its limit and holds its processes: another jail (another uid as root) and the runner are
      // not hurt; then the bomb is let go.
      neighbours ??= Promise.all([
        jailedPython(FORK_BOMB, { processes: 64 }, ["20"]),
        run("/bin/sh", ["-c", "echo runner-forks"], { PATH: "/usr/bin:/bin" }),
      ]).finally(() => stdin.end());
    });
    expect(neighbours, "the bomb reported nothing while it held its processes").toBeDefined();
    const [neighbour, runner] = await neighbours!;
    expect(report.errno).toBe(11); // EAGAIN
    expect(report.forked as number).toBeLessThan(64);
    // What the jail's /proc shows: the bomb's processes and bubblewrap's pid 1 (root's, outside the count).
    expect(report.visible as number).toBeLessThanOrEqual(64 + 1);
    expect(neighbour).toMatchObject({ forked: 20, errno: null });
    expect(runner.stdout).toBe("runner-forks\n");
  }, 300_000);

  it("the default process limit holds too (a bomb of 2,000 gets fewer than the default)", async () => {
    const report = await jailedPython(FORK_BOMB, {});
    expect(report.errno).toBe(11);
    expect(report.forked as number).toBeLessThan(DEFAULT_AGENT_BOUNDS.processes);
  }, 300_000);

  it("a /tmp filler meets the tmpfs's size (ENOSPC), a huge file in the workspace meets the file size limit (EFBIG)", async () => {
    const tmp = await jailedPython(FILLER, { tmpBytes: 8 * MiB }, ["/tmp/fill"]);
    expect(tmp.errno).toBe(28); // ENOSPC
    expect(tmp.written as number).toBeLessThanOrEqual(8 * MiB);
    const huge = await jailedPython(FILLER, { fileBytes: 4 * MiB }, ["huge.bin"]);
    expect(huge.errno).toBe(27); // EFBIG
    expect(huge.written).toBe(4 * MiB);
    expect(statSync(join(huge.workspace as string, "huge.bin")).size).toBe(4 * MiB);
  }, 300_000);

  it.runIf(isRoot)(
    "unprivileged (the test drops itself to nobody) the process limit counts the jail's user namespace only",
    async () => {
      const root = mkdtempSync(join(tmpdir(), "skillrig-agent-bounds-nobody-"));
      chmodSync(root, 0o755);
      for (const dir of ["home", "workspace", "engine"]) {
        mkdirSync(join(root, dir));
        chownSync(join(root, dir), 65534, 65534);
      }
      const sandboxDist = new URL("../dist/index.js", import.meta.url).pathname;
      const driver = String.raw`
const { confineAgent } = await import(${JSON.stringify(sandboxDist)});
const { spawn } = await import("node:child_process");
const root = process.argv[1];
const confined = await confineAgent({ command: ["python3", "-c", process.env.PROGRAM], workspace: root + "/workspace",
  writable: [root + "/engine"], env: { PATH: "/usr/bin:/bin" }, limits: { processes: 64 } });
const child = spawn(confined.file, confined.args, { env: confined.env, stdio: ["ignore", "inherit", "inherit"] });
await new Promise((r) => child.on("exit", r));
await confined.close();
`;
      // nobody holds 100 processes of its own outside the jail: the jail's count starts at none of them.
      const outside = spawn(
        "setpriv",
        [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          "--",
          "/bin/sh",
          "-c",
          "for i in $(seq 100); do sleep 600 & done; echo started; wait",
        ],
        { stdio: ["ignore", "pipe", "ignore"], detached: true },
      );
      try {
        // The 100 processes exist before the jail starts (their shell says so once it has started them all).
        await new Promise((started) => outside.stdout.once("data", started));
        const r = await run(
          "setpriv",
          ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, "--input-type=module", "-e", driver, root],
          {
            PATH: "/usr/bin:/bin",
            HOME: join(root, "home"),
            PROGRAM: FORK_BOMB,
          },
        );
        const report = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
        expect(report.errno, r.stderr).toBe(11);
        expect(report.forked as number).toBeGreaterThan(10);
        expect(report.forked as number).toBeLessThan(64);
      } finally {
        if (outside.pid) process.kill(-outside.pid, "SIGKILL");
      }
    },
    300_000,
  );
});

describe("sandbox.agent in the config", () => {
  it("fills in every default, and a bad value is named by its key path", async () => {
    const { agentBounds, sandboxConfigSection } = await import("@skillrig/sandbox");
    const { compileSchema } = await import("@skillrig/core");
    expect(agentBounds({ output_bytes: 8 * MiB })).toEqual({ ...DEFAULT_AGENT_BOUNDS, outputBytes: 8 * MiB });
    const schema = compileSchema(sandboxConfigSection.schema as never);
    const violations = schema.validate({ agent: { line_bytes: "big", processes: 3, nproc: 1 } });
    expect(violations.map((v) => v.pointer).sort()).toEqual(["/agent/line_bytes", "/agent/nproc", "/agent/processes"]);
  });
});

describe("where RLIMIT_NPROC counts one jail", () => {
  it("Linux counts a uid's processes per user namespace from 5.14 on", async () => {
    const { countsProcessesPerUserNamespace } = await import("../src/agent-profile.js");
    expect(["6.18.44-fc", "5.14.0", "5.15.0-91-generic", "6.1.0"].map((k) => countsProcessesPerUserNamespace(k))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["5.13.19", "5.4.0-150-generic", "4.19.0"].map((k) => countsProcessesPerUserNamespace(k))).toEqual([false, false, false]);
  });
});
