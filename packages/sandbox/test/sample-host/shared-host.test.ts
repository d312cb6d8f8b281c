/**
 * The shared sample host's stream is untrusted: a host that misbehaves is stopped, and what it served ends as
 * "runtime lost" (so the samples move to hosts of their own rather than take the blame).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { availableLevels, createSandbox } from "../../src/create-sandbox.js";
import { openChannel, SharedHost } from "../../src/sample-host/shared-host.js";
import { removeModules, writeModule } from "./samples.js";

afterAll(removeModules);

describe("a sample's channel", () => {
  test("a pair that connected, wrote its last line and ended before the runner accepted it is read to the end", async () => {
    // The host reports a pair's end on its own channel; a pair that fails to load (a syntax error) connects, writes
    // its load error and exits at once, and its connection can still wait in the accept queue when the end arrives.
    // Draining in the same tick as the connect is exactly that order. Before the fix, the listener was closed and
    // the line lost: the runner said the harness "ended before it loaded" instead of naming the syntax error.
    const dir = await mkdtemp(join(tmpdir(), "skillrig-channel-"));
    try {
      const output = new PassThrough();
      const read: Buffer[] = [];
      output.on("data", (chunk: Buffer) => read.push(chunk));
      const channel = openChannel({ path: join(dir, "channel.sock"), uid: process.getuid?.() ?? 0 }, output);
      expect(channel).toBeDefined();
      const pair = connect(join(dir, "channel.sock"));
      pair.on("error", () => {});
      pair.end('{"op": "load_error", "kind": "syntax_error"}\n');
      await new Promise<void>((resolve) => channel!.drain(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(Buffer.concat(read).toString("utf8")).toBe('{"op": "load_error", "kind": "syntax_error"}\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const hostHere = process.getuid?.() === 0 && availableLevels().some((l) => l.level === "namespaces" && l.available);

describe.runIf(hostHere)("the shared sample host's stream (root, level namespaces)", () => {
  test("a host that sends a frame for a sample never opened is stopped, and its open samples end as runtime-lost", async () => {
    const sandbox = createSandbox({ level: "namespaces" });
    const support = sandbox.sampleUids;
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
