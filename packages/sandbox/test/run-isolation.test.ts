/**
 * One run cannot touch another: per-run uids are never held by two runs at once (in one process or across two),
 * a stale uid lock left by a killed runner is recovered, concurrent runs at the namespaces level share no writable
 * place, and descriptors the runner inherited never reach the code.
 */
import "./python-for-uids.js";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { availableLevels, createSandbox, probeHost } from "@skillrig/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { releaseSlotUid, slotLockFolder, takeSlotUid } from "../src/slot-uids.js";

const here = dirname(fileURLToPath(import.meta.url));
const sandboxEntry = resolve(here, "../dist/index.js");
const root = mkdtempSync(join(tmpdir(), "skillrig-isolation-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = probeHost().isRoot;
const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

interface RunSeen {
  uid: number;
  start: number;
  end: number;
  tmp: string[];
}

/** Each run: note its uid and a file in /tmp, wait, then list /tmp (its own, at the namespaces level). */
const RUN_SCRIPT = `
import json, os, time
start = time.time()
open(f"/tmp/mark-{os.getpid()}-{start}", "w").write("x")
time.sleep(1.0)
print(json.dumps({"uid": os.getuid(), "start": start, "end": time.time(), "tmp": [n for n in os.listdir("/tmp") if n.startswith("mark-")]}))
`;

/** `count` runs at once through a fresh sandbox of `level`, in this process or in a child node process. */
function runsInChild(level: string, count: number, folder: string): Promise<RunSeen[]> {
  const program = `
    import { createSandbox } from ${JSON.stringify(sandboxEntry)};
    import { mkdtempSync } from "node:fs";
    import { join } from "node:path";
    const sandbox = createSandbox({ level: ${JSON.stringify(level)} });
    const runs = await Promise.all(Array.from({ length: ${count} }, () => sandbox.run({
      command: ["python3", "-c", ${JSON.stringify(RUN_SCRIPT)}],
      cwd: mkdtempSync(join(${JSON.stringify(folder)}, "run-")),
      limits: { wallMs: 60000 },
    })));
    console.log(JSON.stringify(runs.map((r) => r.exitCode === 0 ? JSON.parse(r.stdout) : { error: r.stderr })));
  `;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", program], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", fail);
    child.on("close", () => {
      try {
        done(JSON.parse(out) as RunSeen[]);
      } catch (error) {
        fail(new Error(`child output was not JSON: ${out}`, { cause: error }));
      }
    });
  });
}

/** As root every level runs the code as a per-run uid (python-for-uids.ts gives them a python3 they can run). */
const dropping = levels;

describe.skipIf(!isRoot)("per-run uids (root)", () => {
  it.each(dropping)("at level %s, runs in two processes at once never hold the same uid at the same time", async (level) => {
    const sandbox = createSandbox({ level });
    const inProcess = Promise.all(
      Array.from({ length: 6 }, () =>
        sandbox.run({ command: ["python3", "-c", RUN_SCRIPT], cwd: mkdtempSync(join(root, "run-")), limits: { wallMs: 60_000 } }),
      ),
    ).then((results) => results.map((r) => JSON.parse(r.stdout) as RunSeen));
    const [mine, theirs] = await Promise.all([inProcess, runsInChild(level, 6, root)]);
    const all = [...mine, ...theirs];
    expect(all).toHaveLength(12);
    for (const run of all) expect(run.uid, JSON.stringify(run)).toBeGreaterThan(0);
    // Any two runs that overlapped in time had different uids.
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const a = all[i] as RunSeen;
        const b = all[j] as RunSeen;
        if (a.start < b.end && b.start < a.end) expect(a.uid, `runs ${i} and ${j} overlapped`).not.toBe(b.uid);
      }
    }
    // At the namespaces level /tmp is each run's own: no run saw another's file.
    if (level === "namespaces") for (const run of all) expect(run.tmp).toHaveLength(1);
  });

  it("recovers a uid whose lock was left by a runner that died, and skips one a live process holds", () => {
    const uid = takeSlotUid() as number;
    expect(uid).toBeDefined();
    releaseSlotUid(uid);
    const lock = join(slotLockFolder(), String(uid));
    // A lock left by a process that is gone (the runner was SIGKILLed): recovered, the same uid is handed out.
    const dead = spawnSync("true").pid as number;
    writeFileSync(lock, `${dead}:1`, { mode: 0o600 });
    expect(takeSlotUid()).toBe(uid);
    releaseSlotUid(uid);
    // A lock held by a live process (pid 1, with its real start time): that uid is skipped.
    const stat = readFileSync("/proc/1/stat", "utf8");
    writeFileSync(lock, `1:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`, { mode: 0o600 });
    try {
      const other = takeSlotUid() as number;
      expect(other).not.toBe(uid);
      releaseSlotUid(other);
    } finally {
      unlinkSync(lock);
    }
  });
});

describe("descriptors the runner inherited", () => {
  it.each(levels)("never reach the code (level %s)", async (level) => {
    // A runner started with descriptors open without close-on-exec (7 and 8), as a shell or a CI agent may leave them;
    // the listing leaves out the descriptor Python's listdir itself held (gone by the time it is checked).
    const program = `
      import { createSandbox } from ${JSON.stringify(sandboxEntry)};
      import { mkdtempSync } from "node:fs";
      import { join } from "node:path";
      const result = await createSandbox({ level: ${JSON.stringify(level)} }).run({
        command: ["python3", "-c", "import os; print(sorted(int(n) for n in os.listdir('/proc/self/fd') if os.path.exists('/proc/self/fd/' + n)))"],
        cwd: mkdtempSync(join(${JSON.stringify(root)}, "fds-")),
        limits: { wallMs: 30000 },
      });
      console.log(result.stdout.trim() || result.stderr);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
      stdio: ["ignore", "pipe", "inherit", "pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
    });
    await new Promise((done) => child.on("close", done));
    expect(out.trim()).toBe("[0, 1, 2]");
  });
});
