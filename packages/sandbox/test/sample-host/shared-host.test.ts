/**
 * The shared sample host's stream is untrusted: a host that misbehaves is stopped, and what it served ends as
 * "runtime lost" (so the samples move to hosts of their own rather than take the blame).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { availableLevels, createSandbox, sampleUidSupportOf } from "../../src/create-sandbox.js";
import { SharedHost } from "../../src/sample-host/shared-host.js";
import { removeModules, writeModule } from "./samples.js";

afterAll(removeModules);

const hostHere = process.getuid?.() === 0 && availableLevels().some((l) => l.level === "namespaces" && l.available);

describe.runIf(hostHere)("the shared sample host's stream (root, level namespaces)", () => {
  test("a host that sends a frame for a sample never opened is stopped, and its open samples end as runtime-lost", async () => {
    const sandbox = createSandbox({ level: "namespaces" });
    const support = sampleUidSupportOf(sandbox);
    expect(support).toBeDefined();
    const { dir } = await writeModule("", "unused.py");
    const hostile = join(dir, "hostile_runtime.py");
    await writeFile(
      hostile,
      'import os, sys, time\nos.write(1, b\'{"op": "ready", "pid": 1}\\n\')\nsys.stdin.readline()\nos.write(1, b\'{"pair": 99, "s": "o", "len": 5}\\nhello\')\ntime.sleep(30)\n',
    );
    const runtime = new SharedHost({
      support: support!,
      python: "python3",
      runtimeFile: hostile,
      harnessFile: hostile,
      workDir: dir,
      readOnlyPaths: [dir],
      limits: { wallMs: 60_000, cpuMs: 60_000, memoryBytes: 1 << 30, maxProcesses: 64, fileSizeBytes: 1 << 20 },
    });
    await runtime.ready;
    const lease = support!.leaseSampleUid()!;
    try {
      const pair = runtime.openPair({
        uid: lease.uid,
        entryFile: hostile,
        functionName: "solve",
        spares: 1,
        cwd: dir,
        tmp: dir,
        limits: { wallMs: 60_000 },
      });
      const result = (await pair.exited) as { runtimeLost?: true; stderr: string };
      expect(result.runtimeLost).toBe(true);
      expect(result.stderr).toBe("the sample host misbehaved and was stopped: it sent a frame for a pair that was never opened");
      await runtime.exited;
      expect(runtime.alive).toBe(false);
    } finally {
      lease.release();
      await runtime.stop(0);
    }
  }, 60_000);
});
