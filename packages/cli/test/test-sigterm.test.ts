/**
 * Issue 38: a wrong answer must not stall the grader. A deliverable returns a wrong 300,000-integer list (every item
 * differs; the old failure diff was a full line diff of both renderings, ~10^11 steps here, hours during which the
 * runner ran at full CPU and did not answer SIGTERM; the test's own timeout is far below that). Here the real CLI
 * grades it in a suite, then a slow sample; the wrong sample's verdict line must come (its compare is bounded), and
 * SIGTERM sent while the next sample runs must end the runner by that signal, before the samples after it ran.
 * Ordering and how it ended are asserted, not a time.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTree } from "./cli-process.js";

const bin = join(import.meta.dirname, "../dist/bin.js");

const WRONG = "def solve(n):\n    return [2 * i + 1 for i in range(n)]  # wrong: range(n) is expected\n";
// A slow sample: the runner is mid-suite while it runs (600 s unless stopped).
const SLOW = "import time\n\ndef solve(n):\n    time.sleep(600)\n    return list(range(n))\n";

const TASK = JSON.stringify({
  contract_version: "1.0",
  task_id: "wrong-then-slow",
  deliverable_type: "function",
  entrypoint: "solve",
  // The wrong list's JSON text (2 MB) fits the return value's cap: it is compared, not cut off as output_limit.
  limits: { output_bytes: 8 * 1024 * 1024 },
  tests: [{ name: "a 300,000-integer list", input: [300000], expected: Array.from({ length: 300000 }, (_, i) => i) }],
});

const SAMPLES = [WRONG, SLOW, SLOW].map((solution) => JSON.stringify({ task_id: "wrong-then-slow", solution })).join("\n");

describe("skillrig test and SIGTERM mid-suite", () => {
  it("grades the wrong huge list, then ends by SIGTERM while the next sample runs", async () => {
    const dir = writeTree({ "task.json": TASK, "samples.jsonl": SAMPLES }, "skillrig-sigterm-");
    const args = [bin, "test", "task.json", "--samples", "samples.jsonl", "--jobs", "1", "--no-record"];
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on("close", (code, signal) => r({ code, signal })),
    );
    // The progress writes a sample that did not pass as it lands: the wrong sample's line means its compare ended.
    await new Promise<void>((seen, fail) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        // Samples are numbered from 1, as in the samples file: the wrong one is the first.
        if (/wrong-then-slow sample 1 .*: failed: return value differs/.test(stderr)) seen();
      });
      child.on("exit", () => fail(new Error(`skillrig ended before the first sample's verdict:\n${stdout}\n${stderr}`)));
    });
    child.kill("SIGTERM");
    const how = await ended;
    // The CLI's one interrupt module (cli/src/interrupts.ts): the first SIGTERM cancels as Ctrl-C does, prints what
    // was graded and exits with the report's code (1: a task fails); a second signal would exit 143 at once.
    expect(how.signal ?? how.code, `${stdout}\n${stderr}`).toBe(1);
    // It ended mid-suite: the samples after the signal are reported as not graded.
    expect(stdout).toMatch(/3 sample\(s\): 0 passed every case, 2 failed, 0 invalid, 1 not graded/);
    // The progress line agrees: the canceled sample is not counted as graded.
    expect(stderr).toContain("graded 2/3 samples (66%), 1 not graded, 0.0% passed");
    expect(stderr).not.toMatch(/graded 3\/3/);
  }, 300_000);
});
