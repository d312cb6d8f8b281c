/**
 * The hostile suite: each case is a real Python deliverable that attacks the sandbox one way. Every
 * case must end with the right status, leave no process and no file behind on the host, and the next
 * run must still work. It runs at the strongest level (`requireStrongest`): on a machine without it
 * the suite fails with the reason instead of passing at a weaker level.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResourceLimits, SandboxResult } from "@skillrig/core";
import { availableLevels, createSandbox, probeHost } from "@skillrig/sandbox";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const hostileDir = join(here, "hostile");
const repoRoot = resolve(here, "../../..");
const root = mkdtempSync(join(tmpdir(), "skillrig-hostile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Runs that must finish get a wall limit a loaded machine cannot miss (2 s did not hold under load: a python3 that
// forks ten children, or starts at all, can take longer); the cases that end at the clock use WALL_KILL.
const LIMITS: ResourceLimits = {
  wallMs: 20_000,
  cpuMs: 30_000, // above the wall limit: busy loops end as timeouts; the CPU limit has its own case
  memoryBytes: 256 * 1024 * 1024,
  maxProcesses: 16,
  outputBytes: 64 * 1024,
  fileSizeBytes: 1024 * 1024,
};

/** For the cases that must end at the wall-clock limit (a loop, a SIGTERM ignorer, a fork bomb): a short one. */
const WALL_KILL: ResourceLimits = { ...LIMITS, wallMs: 2_000 };

const sandbox = createSandbox({ requireStrongest: true });

/**
 * Pids whose command line carries `marker` (every hostile case gets its own marker as argv[1]);
 * `codeOnly` leaves out bubblewrap's own two processes, whose command lines carry it too.
 */
function processesWithMarker(marker: string, codeOnly = false): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) continue;
      if (codeOnly && readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "bwrap") continue;
      pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

interface HostileRun {
  result: SandboxResult;
  cwd: string;
  marker: string;
  /** Most processes with the marker seen at once while it ran. */
  peakProcesses: number;
}

async function runHostile(script: string, args: string[] = [], limits: ResourceLimits = LIMITS): Promise<HostileRun> {
  const marker = `hostile-${randomUUID()}`;
  const cwd = mkdtempSync(join(root, `${script.replace(/\.py$/, "")}-`));
  let peakProcesses = 0;
  const watch = setInterval(() => {
    peakProcesses = Math.max(peakProcesses, processesWithMarker(marker, true).length);
  }, 20);
  try {
    const result = await sandbox.run({
      command: ["python3", join(hostileDir, script), marker, ...args],
      cwd,
      readOnlyPaths: [hostileDir],
      limits,
    });
    return { result, cwd, marker, peakProcesses };
  } finally {
    clearInterval(watch);
  }
}

/** After every case: nothing of it still runs, and the sandbox still runs ordinary code. */
let lastMarker: string | undefined;
afterEach(async () => {
  if (lastMarker) expect(processesWithMarker(lastMarker), "processes left behind").toEqual([]);
  lastMarker = undefined;
  const cwd = mkdtempSync(join(root, "next-"));
  const next = await sandbox.run({ command: ["python3", "-c", "print('still working')"], cwd, limits: LIMITS });
  expect(next).toMatchObject({ exitCode: 0, stdout: "still working\n", timedOut: false });
});

async function hostile(script: string, args: string[] = [], limits: ResourceLimits = LIMITS): Promise<HostileRun> {
  const run = await runHostile(script, args, limits);
  lastMarker = run.marker;
  // The tree is gone the moment run() settles: no grace period.
  expect(processesWithMarker(run.marker), "processes left when run() settled").toEqual([]);
  expect(run.result.isolation).toBe("namespaces");
  return run;
}

describe("hostile deliverables at the strongest isolation level", () => {
  it("runs at the strongest level without warnings", () => {
    expect(sandbox.isolation).toBe("namespaces");
    expect(sandbox.warnings).toEqual([]);
  });

  it("a loop that never ends is killed at the wall-clock limit", async () => {
    const { result } = await hostile("loop_forever.py", [], WALL_KILL);
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL", cpuLimited: false });
  });

  it("a busy loop with a CPU limit below the wall limit ends as cpuLimited", async () => {
    // A generous wall limit: on a loaded machine one CPU second can take many wall seconds.
    const { result } = await hostile("loop_forever.py", [], { ...LIMITS, wallMs: 60_000, cpuMs: 1_000 });
    expect(result).toMatchObject({ timedOut: false, cpuLimited: true, signal: "SIGXCPU" });
  });

  it("a process that ignores SIGTERM and sleeps is killed at the wall-clock limit", async () => {
    const { result } = await hostile("ignore_sigterm.py", [], WALL_KILL);
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL", stdout: "ignoring SIGTERM\n" });
  });

  it("a fork bomb is held to the process limit and killed at the wall-clock limit", async () => {
    const { result, peakProcesses } = await hostile("fork_bomb.py", [], WALL_KILL);
    expect(result.timedOut).toBe(true);
    // It forked until the limit stopped it, and never got past it.
    expect(peakProcesses).toBe(LIMITS.maxProcesses);
  });

  it("allocating 4 GB fails at the memory limit and is reported as memoryLimited", async () => {
    // Touching 256 MB is 65,536 page faults: over a second on a VM where a fault costs ~20 us, more under load, so
    // the wall limit is generous: the memory limit, not the clock, must end it.
    const { result } = await hostile("allocate_4gb.py", [], { ...LIMITS, wallMs: 60_000 });
    expect(result).toMatchObject({ memoryLimited: true, timedOut: false, stdout: "" });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("MemoryError");
  });

  it("printing 1 GB keeps only the first outputBytes and ends the run as outputLimited", async () => {
    const { result } = await hostile("print_1gb.py");
    expect(result).toMatchObject({ outputLimited: true, timedOut: false });
    expect(Buffer.byteLength(result.stdout)).toBe(LIMITS.outputBytes);
    expect(result.stdout.startsWith("y".repeat(1023))).toBe(true);
  });

  it("writing a 2 GB file stops at the file size limit and is reported as fileSizeLimited", async () => {
    const { result, cwd } = await hostile("write_2gb.py");
    expect(result).toMatchObject({ fileSizeLimited: true, timedOut: false });
    expect(result.exitCode).not.toBe(0);
    expect(statSync(join(cwd, "huge.bin")).size).toBeLessThanOrEqual(LIMITS.fileSizeBytes as number);
  });

  it("cannot reach a TCP listener on the host's 127.0.0.1", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const port = (server.address() as AddressInfo).port;
      const { result } = await hostile("connect_tcp.py", [String(port)]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^blocked: /);
      await new Promise((r) => setTimeout(r, 50)); // let a connection that did get through be counted
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("cannot write outside its folder: the parent folder, /tmp, the repository", async () => {
    const name = `escaped-${randomUUID()}`;
    const sibling = mkdtempSync(join(root, "sibling-"));
    const targets = [join(root, name), join(sibling, name), join("/tmp", name), join(repoRoot, name)];
    const { result, cwd } = await hostile("write_outside.py", targets);
    expect(result.exitCode).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout))).toEqual(targets);
    for (const target of targets) expect(existsSync(target), target).toBe(false);
    expect(readdirSync(sibling)).toEqual([]);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("cannot read a secret from the runner's environment", async () => {
    const secret = `s3cret-${randomUUID()}`;
    process.env.SKILLRIG_HOSTILE_SECRET = secret;
    process.env.OPENAI_API_KEY = secret;
    try {
      const { result } = await hostile("read_secret.py");
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("PATH="); // it did read an environment ...
      expect(result.stdout).not.toContain(secret); // ... but not ours
    } finally {
      Reflect.deleteProperty(process.env, "SKILLRIG_HOSTILE_SECRET");
      Reflect.deleteProperty(process.env, "OPENAI_API_KEY");
    }
  });

  it("a detached background child does not outlive the run, and the run is not held up by it", async () => {
    const { result } = await hostile("background_child.py");
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "parent done\n" });
  });

  it("deleting its own folder only empties that folder", async () => {
    const cwd = mkdtempSync(join(root, "delete-"));
    mkdirSync(join(cwd, "sub"));
    writeFileSync(join(cwd, "sub", "input.json"), "{}");
    writeFileSync(join(cwd, "case.txt"), "case");
    const sibling = mkdtempSync(join(root, "sibling-"));
    writeFileSync(join(sibling, "keep.txt"), "keep");
    const marker = `hostile-${randomUUID()}`;
    lastMarker = marker;
    const result = await sandbox.run({
      command: ["python3", join(hostileDir, "delete_own_folder.py"), marker],
      cwd,
      readOnlyPaths: [hostileDir],
      limits: LIMITS,
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    // The folder is the sandbox's mount point, so it stays; its contents are gone.
    expect(result.stdout).toMatch(/^folder kept: /);
    expect(readdirSync(cwd)).toEqual([]);
    expect(readFileSync(join(sibling, "keep.txt"), "utf8")).toBe("keep");
  });
});

describe("no user namespaces inside the sandbox", () => {
  it("code cannot make a user namespace (unshare(CLONE_NEWUSER), unshare -Ur, os.unshare), so no uncapped tmpfs", async () => {
    const { result } = await hostile("user_namespace.py");
    expect(result.exitCode).toBe(0);
    const attempts = JSON.parse(result.stdout) as Record<string, string>;
    expect(attempts["unshare syscall"]).toBe("Operation not permitted");
    expect(attempts["unshare -Ur"]).toMatch(/Operation not permitted/);
    if ("os.unshare" in attempts) expect(attempts["os.unshare"]).toBe("Operation not permitted");
    expect(Object.values(attempts)).not.toContain("created");
  });

  it("ordinary children still start (clone3 falls back to clone)", async () => {
    const cwd = mkdtempSync(join(root, "children-"));
    const result = await sandbox.run({
      command: [
        "python3",
        "-c",
        "import subprocess; print(subprocess.run(['sh', '-c', 'echo child'], capture_output=True, text=True).stdout.strip())",
      ],
      cwd,
      limits: LIMITS,
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: "child\n" });
  });
});

describe("a memory bomb spread over many processes", () => {
  it("is stopped by the tree-wide memory cap, though each process stays under its own limit", async () => {
    // 12 children x 100 MB would pass a 400 MB cap for the tree; 16 x 256 MB of rlimits could not stop it.
    const capped = createSandbox({ requireStrongest: true, treeMemoryBytes: 400 * 1024 * 1024 });
    const marker = `hostile-${randomUUID()}`;
    lastMarker = marker;
    const result = await capped.run({
      command: ["python3", join(hostileDir, "memory_bomb.py"), marker],
      cwd: mkdtempSync(join(root, "memory-bomb-")),
      readOnlyPaths: [hostileDir],
      limits: { ...LIMITS, wallMs: 30_000 },
    });
    expect(processesWithMarker(marker)).toEqual([]);
    expect(result).toMatchObject({ memoryLimited: true, timedOut: false, signal: "SIGKILL" });
  });

  it("counts pages shared by forked processes once: a tree whose RSS adds up past the cap but whose PSS does not runs on", async () => {
    // 150 MB touched, then 4 forks that hold it for 1.5 s: 750 MB of RSS summed over the tree, about 150 MB of PSS.
    const capped = createSandbox({ requireStrongest: true, treeMemoryBytes: 400 * 1024 * 1024 });
    const script = [
      "import os, time",
      "block = bytearray(150 * 1024 * 1024)",
      "for i in range(0, len(block), 4096): block[i] = 1",
      "kids = []",
      "for _ in range(4):",
      "    pid = os.fork()",
      "    if pid == 0:",
      "        time.sleep(1.5)",
      "        os._exit(0)",
      "    kids.append(pid)",
      "for pid in kids: os.waitpid(pid, 0)",
      "print('done')",
    ].join("\n");
    const result = await capped.run({
      command: ["python3", "-c", script],
      cwd: mkdtempSync(join(root, "shared-pages-")),
      limits: { ...LIMITS, memoryBytes: 1024 * 1024 * 1024, wallMs: 30_000 },
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: "done\n", memoryLimited: false });
  });
});

describe("a case folder used twice", () => {
  it("a symlink planted by the first run does not hand its target to the second run's uid", async () => {
    const target = join(root, `host-file-${randomUUID()}`);
    writeFileSync(target, "host data");
    const before = statSync(target);
    const cwd = mkdtempSync(join(root, "reuse-"));
    // As root each concurrent run has its own uid: a run holding the first uid makes the planting run get
    // another, so the second run (back on the first uid) has to hand the folder, symlink included, over.
    const holder = sandbox.run({
      command: ["python3", "-c", "import time; time.sleep(0.5)"],
      cwd: mkdtempSync(join(root, "holder-")),
      limits: LIMITS,
    });
    const plant = await sandbox.run({
      command: ["python3", "-c", `import os; os.symlink(${JSON.stringify(target)}, "planted")`],
      cwd,
      limits: LIMITS,
    });
    expect(plant.exitCode).toBe(0);
    await holder;
    const second = await sandbox.run({
      command: ["python3", "-c", "open('planted', 'w').write('overwritten')"],
      cwd,
      limits: LIMITS,
    });
    expect(second.exitCode).not.toBe(0); // the target is not visible inside the sandbox at all
    const after = statSync(target);
    expect({ uid: after.uid, gid: after.gid }).toEqual({ uid: before.uid, gid: before.gid });
    expect(readFileSync(target, "utf8")).toBe("host data");
  });
});

describe("parallel runs", () => {
  it("each run has its own process budget", async () => {
    const forkTen = "import os, time\nfor _ in range(10):\n    if os.fork() == 0:\n        time.sleep(1); os._exit(0)\nprint('forked 10')";
    const limits = { ...LIMITS, maxProcesses: 12 };
    const runs = await Promise.all(
      [1, 2, 3].map(() => sandbox.run({ command: ["python3", "-c", forkTen], cwd: mkdtempSync(join(root, "par-")), limits })),
    );
    for (const run of runs) expect(run).toMatchObject({ exitCode: 0, stdout: "forked 10\n" });
  });
});

/**
 * The weaker levels promise less (no network or filesystem isolation, see docs/sandbox.md), but what they do
 * promise must hold too, for a machine that falls back to them. The slow cases (timeouts) and the fork bomb
 * (the process limit needs a per-run uid there) stay with the strongest level above.
 */
const weakerLevels = availableLevels()
  .filter((l) => l.available && l.level !== "namespaces")
  .map((l) => l.level);
/**
 * As root the weaker levels run the code as a per-run uid too, which reaches the interpreter through the host's
 * tree: the user's python3 here may live under /root (pyenv, 0700), so these use the system's /usr/bin/python3.
 */
const systemPython = "/usr/bin/python3";
const weakHost = probeHost().isRoot ? { ...probeHost(), python: { executable: systemPython, prefixes: ["/usr"] } } : probeHost();

describe.each(weakerLevels)("hostile deliverables at the weaker level %s", (level) => {
  const weaker = createSandbox({ level, host: weakHost });
  const runAt = async (script: string) => {
    const marker = `hostile-${randomUUID()}`;
    const cwd = mkdtempSync(join(root, `${level}-${script.replace(/\.py$/, "")}-`));
    const result = await weaker.run({
      command: ["python3", join(hostileDir, script), marker],
      cwd,
      readOnlyPaths: [hostileDir],
      // A generous wall limit: the memory and file-size limits, not the clock, must end these (see above).
      limits: { ...LIMITS, wallMs: 60_000 },
    });
    expect(processesWithMarker(marker)).toEqual([]);
    expect(result.isolation).toBe(level);
    return { result, cwd };
  };

  it("printing 1 GB is capped", async () => {
    const { result } = await runAt("print_1gb.py");
    expect(result.outputLimited).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBe(LIMITS.outputBytes);
  });

  it("reading the runner's secrets finds none in its environment", async () => {
    const secret = `s3cret-${randomUUID()}`;
    process.env.SKILLRIG_HOSTILE_SECRET = secret;
    try {
      const { result } = await runAt("read_secret.py");
      // Without a pid namespace other processes' /proc/*/environ may be readable; their own environment is what we control.
      const ownEnvironment = result.stdout.split("--- /proc/*/environ ---")[0] as string;
      expect(ownEnvironment).toContain("PATH=");
      expect(ownEnvironment).not.toContain(secret);
    } finally {
      Reflect.deleteProperty(process.env, "SKILLRIG_HOSTILE_SECRET");
    }
  });

  it("a detached background child does not outlive the run", async () => {
    const { result } = await runAt("background_child.py");
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "parent done\n" });
  });
});

// Level "none" sets no rlimits (there 4 GB would really be allocated): these run at "rlimits" only.
describe.each(weakerLevels.filter((level) => level === "rlimits"))("resource limits at the weaker level %s", (level) => {
  const weaker = createSandbox({ level, host: weakHost });
  const runAt = async (script: string) => {
    const marker = `hostile-${randomUUID()}`;
    const cwd = mkdtempSync(join(root, `${level}-${script.replace(/\.py$/, "")}-`));
    const result = await weaker.run({
      command: ["python3", join(hostileDir, script), marker],
      cwd,
      readOnlyPaths: [hostileDir],
      // A generous wall limit: the memory and file-size limits, not the clock, must end these (see above).
      limits: { ...LIMITS, wallMs: 60_000 },
    });
    expect(processesWithMarker(marker)).toEqual([]);
    return { result, cwd };
  };

  it("allocating 4 GB and writing 2 GB hit the limits", async () => {
    const memory = await runAt("allocate_4gb.py");
    expect(memory.result.memoryLimited).toBe(true);
    const file = await runAt("write_2gb.py");
    expect(file.result.fileSizeLimited).toBe(true);
    expect(statSync(join(file.cwd, "huge.bin")).size).toBeLessThanOrEqual(LIMITS.fileSizeBytes as number);
  });
});

/**
 * As root, the weaker levels never run the code as root: always a per-run uid with no capability (bounding set
 * included) and no_new_privs; when that uid cannot reach the interpreter, the run is refused by name.
 */
const canDropHere = probeHost().isRoot && existsSync(systemPython) && weakerLevels.length > 0;
describe.each(canDropHere ? weakerLevels : [])("level %s run as root", (level) => {
  const host = weakHost;
  const dropping = createSandbox({ level: level as "rlimits" | "none", host });
  const CAPS_AND_UID =
    "import os, re; s = open('/proc/self/status').read(); print(os.getuid(), *re.findall(r'(?:Cap(?:Inh|Eff|Prm|Bnd|Amb)|NoNewPrivs):\\s*(\\w+)', s))";

  it("runs the code as a per-run uid, with no capability and no_new_privs, that can reach a case folder inside a private (0700) temp folder", async () => {
    expect(dropping.warnings.join("\n")).not.toMatch(/runs as root/);
    const privateParent = mkdtempSync(join(root, "private-")); // mkdtemp: mode 0700
    const cwd = mkdtempSync(join(privateParent, "case-"));
    const result = await dropping.run({
      command: ["python3", "-c", `open('out.txt', 'w').write('x'); ${CAPS_AND_UID}`],
      cwd,
      limits: LIMITS,
    });
    expect(result.stderr).toBe("");
    const [uid, ...rest] = result.stdout.trim().split(" ");
    expect(Number(uid)).toBeGreaterThan(0);
    // CapInh, CapPrm, CapEff, CapBnd, CapAmb all empty; NoNewPrivs 1.
    expect(rest).toEqual([...Array(5).fill("0000000000000000"), "1"]);
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("x");
  });

  it("refuses the run, naming the folder that stops the per-run uid, when only root can run the interpreter (never runs it as root)", async () => {
    // A python3 inside a 0700 folder of root's (as a pyenv under /root is): no per-run uid can run it.
    const privateBin = mkdtempSync(join(root, "root-only-python-"));
    symlinkSync(systemPython, join(privateBin, "python3"));
    const rootOnly = createSandbox({
      level: level as "rlimits" | "none",
      host: { ...host, python: { executable: join(privateBin, "python3"), prefixes: ["/usr"] } },
    });
    const cwd = mkdtempSync(join(root, `${level}-root-only-`));
    let refusal: unknown;
    try {
      await rootOnly.run({ command: ["python3", "-c", "open('ran', 'w').write('ran')"], cwd, limits: LIMITS });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: "sandbox_unavailable",
      file: privateBin,
      message: expect.stringMatching(
        new RegExp(
          `at level "${level}" deliverable code runs as an unprivileged per-run uid \\(never as root\\), which cannot run ${privateBin}/python3: ${privateBin} is mode 0700, owned by uid 0`,
        ),
      ),
      hint: expect.stringMatching(/use level "namespaces".*PATH=\/usr\/bin:\$PATH/),
    });
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    // A program of its own under a closed folder is refused the same way, named.
    let program: unknown;
    try {
      await dropping.run({ command: [join(privateBin, "python3"), "-c", "pass"], cwd, limits: LIMITS });
    } catch (error) {
      program = error;
    }
    expect(program).toMatchObject({ code: "sandbox_unavailable", file: privateBin });
  });
});

// Level "none" sets no rlimits, so no process limit: the fork bomb runs at "rlimits" only.
describe.each(canDropHere && weakerLevels.includes("rlimits") ? ["rlimits"] : [])("level %s run as root, process limit", (level) => {
  const dropping = createSandbox({ level: level as "rlimits", host: weakHost });

  it("holds a fork bomb to the process limit with that uid", async () => {
    const marker = `hostile-${randomUUID()}`;
    lastMarker = marker;
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, processesWithMarker(marker, true).length);
    }, 20);
    try {
      const result = await dropping.run({
        command: ["python3", join(hostileDir, "fork_bomb.py"), marker],
        cwd: mkdtempSync(join(root, "rlimits-bomb-")),
        readOnlyPaths: [hostileDir],
        limits: WALL_KILL,
      });
      expect(result.timedOut).toBe(true);
    } finally {
      clearInterval(watch);
    }
    expect(processesWithMarker(marker)).toEqual([]);
    expect(peak).toBe(LIMITS.maxProcesses);
  });
});
