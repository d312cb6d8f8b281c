/**
 * The tree's CPU time (`cpuTreeMs`) and the working folder's disk use (`diskBytes`), at every level the machine has.
 * Each hostile command states the flag it must end with. Nothing is timed: the wall clock of every run is two minutes,
 * far past what the watched limit needs, so a run that ends with the right flag ended by that limit.
 */
import "./python-for-uids.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableLevels, createSandbox } from "@skillrig/sandbox";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "skillrig-usage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1024 * 1024;
const WALL = 120_000;
const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

const caseFolder = (name: string) => mkdtempSync(join(root, `${name}-`));

/** Spins in 6 processes and 2 threads each, every one put back on all cores. */
const SPREAD_HOG = `
import os, threading
cores = range(os.cpu_count() or 2)
def spin():
    while True:
        pass
for _ in range(6):
    if os.fork() == 0:
        break
os.sched_setaffinity(0, cores)
for _ in range(2):
    threading.Thread(target=spin, daemon=True).start()
spin()
`;

/** Writes 24 files of 4 MiB (96 MiB), each far under the file-size limit. */
const FILLER = `
import os
chunk = b"x" * (1 << 20)
for n in range(24):
    with open(f"f{n}", "wb") as out:
        for _ in range(4):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
print("wrote it all")
`;

describe.each(levels)("usage limits at level %s", (level) => {
  const sandbox = createSandbox({ level });

  it("a tree that spreads its work over processes and threads, unpinned, ends cpuLimited at cpuTreeMs", async () => {
    const result = await sandbox.run({
      command: ["python3", "-c", SPREAD_HOG],
      cwd: caseFolder("hog"),
      limits: { wallMs: WALL, cpuMs: WALL, cpuTreeMs: 1_000, maxProcesses: 32 },
    });
    expect(result).toMatchObject({ cpuLimited: true, timedOut: false });
  });

  it("a sleeper uses no CPU: it ends at the wall clock, timedOut", async () => {
    const result = await sandbox.run({
      command: ["python3", "-c", "import time; time.sleep(60)"],
      cwd: caseFolder("sleeper"),
      limits: { wallMs: 1_000, cpuTreeMs: 500 },
    });
    expect(result).toMatchObject({ cpuLimited: false, timedOut: true });
  });

  it("many files each under the file-size limit end diskLimited at diskBytes", async () => {
    const result = await sandbox.run({
      command: ["python3", "-c", FILLER],
      cwd: caseFolder("filler"),
      limits: { wallMs: WALL, diskBytes: 16 * MiB, fileSizeBytes: 8 * MiB },
    });
    // Stopped while writing, or (on a fast disk, between two samples) finished: the check after the tree is gone
    // sees what it left either way.
    expect(result).toMatchObject({ diskLimited: true, fileSizeLimited: false });
  });

  it("files deleted while held open still count against diskBytes", async () => {
    const source = `
import os, time
chunk = b"x" * (1 << 20)
held = []
for n in range(24):
    out = open(f"f{n}", "wb")
    for _ in range(4):
        out.write(chunk)
    out.flush()
    os.fsync(out.fileno())
    os.unlink(f"f{n}")
    held.append(out)
time.sleep(100)
`;
    const result = await sandbox.run({
      command: ["python3", "-c", source],
      cwd: caseFolder("unlinked"),
      limits: { wallMs: WALL, diskBytes: 16 * MiB, fileSizeBytes: 8 * MiB },
    });
    expect(result).toMatchObject({ diskLimited: true, timedOut: false });
  });

  it("a folder closed to everyone (chmod 000) still counts", async () => {
    const source = `
import os, time
os.mkdir("hidden")
chunk = b"x" * (1 << 20)
for n in range(24):
    with open(f"hidden/f{n}", "wb") as out:
        for _ in range(4):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
os.chmod("hidden", 0)
time.sleep(100)
`;
    const result = await sandbox.run({
      command: ["python3", "-c", source],
      cwd: caseFolder("hidden"),
      limits: { wallMs: WALL, diskBytes: 16 * MiB, fileSizeBytes: 8 * MiB },
    });
    expect(result).toMatchObject({ diskLimited: true, timedOut: false });
  });

  it("more than 10,000 entries end diskLimited, whatever their size", async () => {
    const source = `
import os, time
for n in range(10_050):
    open(f"e{n}", "wb").close()
time.sleep(100)
`;
    const result = await sandbox.run({
      command: ["python3", "-c", source],
      cwd: caseFolder("entries"),
      limits: { wallMs: WALL, diskBytes: 64 * MiB },
    });
    expect(result).toMatchObject({ diskLimited: true, timedOut: false });
  });

  it("an honest run under both caps sets neither flag", async () => {
    const result = await sandbox.run({
      command: ["python3", "-c", "open('out.txt', 'w').write('x' * 100_000); print(sum(range(10**5)))"],
      cwd: caseFolder("honest"),
      limits: { wallMs: WALL, cpuTreeMs: 5_000, diskBytes: 16 * MiB },
    });
    expect(result).toMatchObject({ exitCode: 0, cpuLimited: false, diskLimited: false, timedOut: false });
  });
});
