/**
 * A sample's end in the shared host does only what the sample made necessary, and never less: the runner skips its
 * own sweep of the machine's /proc for the sample's uid only when the host confirmed the end of every process it
 * ran as that uid (it confirms after killing everything of the uid), and nothing of the uid is left either way.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, type Sandbox } from "@skillrig/core";
import { availableLevels, createSandbox } from "../../src/create-sandbox.js";
import { removeModules, writeModule } from "./samples.js";

afterAll(removeModules);

const hostHere = process.getuid?.() === 0 && availableLevels().some((l) => l.level === "namespaces" && l.available);

/** Pids on this machine whose real uid is `uid`. */
function processesOf(uid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = readFileSync(`/proc/${name}/status`, "utf8")
        .split("\n")
        .find((l) => l.startsWith("Uid:"));
      if (line && Number(line.split(/\s+/)[1]) === uid) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A sample that leaves a detached daemon (double fork, own session) running as its uid, and returns that uid. */
const DAEMON = `import os, time

def leave_daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.wait()
    return os.getuid()
`;

/** The sandbox, with every release of a sample uid recorded (whether the runner was told the host swept it). */
function recordingSandbox() {
  const sandbox = createSandbox({ level: "namespaces" });
  const support = sandbox.sampleUids;
  if (!support) throw new Error("no per-sample uids here");
  const releases: { uid: number; hostSwept: boolean }[] = [];
  const lease = support.leaseSampleUid.bind(support);
  support.leaseSampleUid = () => {
    const leased = lease();
    if (!leased) return leased;
    return {
      uid: leased.uid,
      release(options) {
        releases.push({ uid: leased.uid, hostSwept: options?.hostSwept === true });
        leased.release(options);
      },
    };
  };
  return { sandbox, releases };
}

/** A function sample of `module`, one case at a time. */
function openFunction(sandbox: Sandbox, module: { dir: string; entryFile: string }, functionName: string, cases: number) {
  return sandbox.openSample!({
    program: { kind: "function", entryFile: module.entryFile, functionName },
    snapshotDir: module.dir,
    concurrency: 1,
    cases,
    limits: { ...DEFAULT_LIMITS, wallMs: 60_000 },
  });
}

/** Sample hosts (python running sample_host.py) that are descendants of this process. */
function ourHosts(): number[] {
  const parentOf = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return 0;
    }
  };
  const argv0 = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    } catch {
      return "";
    }
  };
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      let cmdline = "";
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return false;
      }
      if (!cmdline.includes("sample_host.py") || !argv0(pid).includes("python") || argv0(parentOf(pid)).includes("python")) return false;
      for (let at = pid; at > 1; at = parentOf(at)) if (at === process.pid) return true;
      return false;
    });
}

/**
 * Hostile: looks for the runner's channel to its harness. Every socket or FIFO in the folders above its case folder
 * it may list (its pair's own folder included, where the channel was), the channel's path itself, and the
 * descriptors of the processes above it (its harness's, which hold the channel). Returns what it could connect to
 * or open; the verdict it must get: [] (nothing reached), and the sample's next case is answered as usual.
 */
const CHANNEL_HUNTER = `import os, socket, stat

def hunt():
    reached = []
    folders = []
    at = os.getcwd()
    while at != "/":
        folders.append(at)
        at = os.path.dirname(at)
    candidates = set()
    for folder in folders:
        candidates.add(os.path.join(folder, "channel"))
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode):
                candidates.add(path)
    for path in sorted(candidates):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(1)
            sock.connect(path)
            reached.append(path)
        except OSError:
            pass
        finally:
            sock.close()
    pid = os.getppid()
    while pid > 1:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR | os.O_NONBLOCK))
                    reached.append(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    pass
        except OSError:
            pass
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
    return reached
`;

describe.runIf(hostHere)("a sample's end in the shared host (root, level namespaces)", () => {
  test("hostile: a sample that hunts for the runner's channel (sockets and FIFOs above its folder, the channel's path, its harness's descriptors) reaches nothing, and its next case is answered as usual", async () => {
    const { sandbox } = recordingSandbox();
    try {
      const module = await writeModule(CHANNEL_HUNTER);
      const sample = await openFunction(sandbox, module, "hunt", 2);
      try {
        for (let round = 0; round < 2; round++) {
          const reply = await sample.run({ limits: DEFAULT_LIMITS, argsJson: "[]" });
          expect(reply.end).toBe("returned");
          expect(JSON.parse(reply.valueJson)).toEqual([]);
        }
      } finally {
        await sample.close();
      }
    } finally {
      await sandbox.close?.();
    }
  }, 60_000);

  test("a sample that left a detached daemon: the host sweeps its uid and confirms it, the runner skips its own /proc sweep, and nothing of the uid is left", async () => {
    const { sandbox, releases } = recordingSandbox();
    try {
      const module = await writeModule(DAEMON);
      const sample = await openFunction(sandbox, module, "leave_daemon", 1);
      const reply = await sample.run({ limits: DEFAULT_LIMITS, argsJson: "[]" });
      expect(reply.end).toBe("returned");
      const uid = Number(reply.valueJson);
      expect(releases).toEqual([]);
      await sample.close();
      // The sample's teardown finishes off the runner's path; the sandbox's close waits for it.
      await sandbox.close?.();
      expect(releases).toEqual([{ uid, hostSwept: true }]);
      expect(processesOf(uid)).toEqual([]);
    } finally {
      await sandbox.close?.();
    }
  }, 60_000);

  test("a host lost while the sample was open confirmed nothing: the runner sweeps the uid itself", async () => {
    const { sandbox, releases } = recordingSandbox();
    try {
      const module = await writeModule(DAEMON);
      const sample = await openFunction(sandbox, module, "leave_daemon", 2);
      const hosts = ourHosts();
      expect(hosts).toHaveLength(1);
      process.kill(hosts[0] as number, "SIGKILL");
      // The case runs again in a sandbox of the sample's own; the shared pair's uid is released unconfirmed.
      const reply = await sample.run({ limits: DEFAULT_LIMITS, argsJson: "[]" });
      expect(reply.end).toBe("returned");
      await sample.close();
      expect(releases).toHaveLength(1);
      expect(releases[0]?.hostSwept).toBe(false);
      expect(processesOf(releases[0]?.uid as number)).toEqual([]);
    } finally {
      await sandbox.close?.();
    }
  }, 60_000);
});
