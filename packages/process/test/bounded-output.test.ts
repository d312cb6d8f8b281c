/**
 * The process runner's output bounds with real processes: a line without a newline far past the line bound, and a
 * flood of ordinary lines past the total, each end the run "output_limit" with the tree stopped; lines within the
 * bounds arrive whole, `\r\n` and a last line without a newline included.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { OutputBudget, readBoundedLines } from "@skillrig/process";
import { runProcess } from "@skillrig/process/run-process";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const MiB = 1024 * 1024;

describe("bounded output", () => {
  it("splits chunks into lines whatever their boundaries, \\r\\n and a last unterminated line included", async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const done = readBoundedLines(
      stream,
      new OutputBudget({ lineBytes: 16, totalBytes: 1000 }),
      (l) => lines.push(l),
      () => {},
    );
    for (const part of ["ab", "c\r\nde", "f\n\nü", "ber\nlast"]) stream.write(Buffer.from(part));
    stream.end();
    await done;
    expect(lines).toEqual(["abc", "def", "", "über", "last"]);
  });

  it("drops a line past lineBytes and says so once, whatever the chunks", async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const hits: string[] = [];
    const budget = new OutputBudget({ lineBytes: 8, totalBytes: 1000 });
    const done = readBoundedLines(
      stream,
      budget,
      (l) => lines.push(l),
      (h) => hits.push(`${h.bound}:${h.limit}`),
    );
    stream.write("short\n0123");
    stream.write("45678");
    stream.write("9abcdef\nafter\n");
    stream.end();
    await done;
    expect(lines).toEqual(["short"]);
    expect(hits).toEqual(["line_bytes:8"]);
  });

  it("a process printing 1 GiB without a newline ends output_limit (line_bytes), and the runner is fine", async () => {
    const r = await runProcess({
      file: "sh",
      args: ["-c", "head -c 1073741824 /dev/zero | tr '\\0' x; sleep 30"],
      cwd: "/",
      env,
      timeoutMs: 120_000,
      outputBudget: new OutputBudget({ lineBytes: 4 * MiB, totalBytes: 2048 * MiB }),
    });
    expect(r.ending).toEqual({ kind: "output_limit", bound: "line_bytes", limit: 4 * MiB });
    // Stopped, not waited for: the sleep would have held it 30 s.
    expect(r.durationMs).toBeLessThan(30_000);
  }, 120_000);

  it("a flood of ordinary lines past totalBytes ends output_limit (output_bytes); the lines before it arrived", async () => {
    let seen = 0;
    const r = await runProcess({
      file: "sh",
      args: ["-c", "yes 'a line of an endless flood'"],
      cwd: "/",
      env,
      timeoutMs: 120_000,
      onStdoutLine: () => seen++,
      outputBudget: new OutputBudget({ lineBytes: MiB, totalBytes: 8 * MiB }),
    });
    expect(r.ending).toEqual({ kind: "output_limit", bound: "output_bytes", limit: 8 * MiB });
    expect(seen).toBeGreaterThan(0);
    expect(seen * 27).toBeLessThanOrEqual(8 * MiB);
  }, 120_000);

  it("a bound the caller passes on the budget (events) ends the run output_limit after that line", async () => {
    const budget = new OutputBudget({ lineBytes: MiB, totalBytes: 64 * MiB });
    let events = 0;
    const r = await runProcess({
      file: "sh",
      args: ["-c", "while :; do echo event; done"],
      cwd: "/",
      env,
      timeoutMs: 120_000,
      outputBudget: budget,
      onStdoutLine: () => {
        if (++events > 100) budget.pass({ bound: "events", limit: 100 });
      },
    });
    expect(r.ending).toEqual({ kind: "output_limit", bound: "events", limit: 100 });
  }, 120_000);
});
