/** The process runner with real processes: streaming, timeouts, the idle watchdog and process-group cleanup. */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ProcessIO, runProcess } from "@skillrig/process/run-process";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!existsSync(`/proc/${pid}`) || !alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("runProcess", () => {
  it("with stdin piped, a caller talks to the process and finish() closes its stdin (it exits by itself)", async () => {
    const out: string[] = [];
    let io: ProcessIO | undefined;
    const r = await runProcess({
      file: "sh",
      args: ["-c", 'while read line; do echo "got $line"; done; echo eof'],
      cwd: "/",
      env,
      timeoutMs: 30_000,
      stdin: "pipe",
      onSpawn: (given) => {
        io = given;
        given.stdin!.write("ping\n");
      },
      onStdoutLine: (l) => {
        out.push(l);
        if (l === "got ping") io!.finish(60_000);
      },
    });
    expect(r).toMatchObject({ ending: { kind: "exited", code: 0 }, exitCode: 0 });
    expect(out).toEqual(["got ping", "eof"]);
  });

  it("finish() stops a process that ignores the end of its stdin after the grace: it ends as Node reports it, killed", async () => {
    const r = await runProcess({
      file: "sh",
      args: ["-c", "echo ready; exec sleep 600"],
      cwd: "/",
      env,
      timeoutMs: 60_000,
      stdin: "pipe",
      onSpawn: (io) => io.finish(100),
    });
    // Not a stop of ours for a limit: the ending is the signal the grace's stop sent.
    expect(r.ending).toEqual({ kind: "killed", signal: "SIGTERM" });
    expect(r.signal).toBe("SIGTERM");
  });

  it("streams stdout and stderr lines as they come and reports the exit code", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const r = await runProcess({
      file: "sh",
      args: ["-c", "echo one; echo two >&2; echo three; exit 3"],
      cwd: "/",
      env,
      timeoutMs: 10_000,
      onStdoutLine: (l) => out.push(l),
      onStderrLine: (l) => err.push(l),
    });
    expect(r).toMatchObject({ exitCode: 3, ending: { kind: "exited", code: 3 } });
    expect(out).toEqual(["one", "three"]);
    expect(err).toEqual(["two"]);
    expect(r.stderrTail).toBe("two\n");
  });

  it("gives the child stdin at EOF (codex waits for stdin to end)", async () => {
    const r = await runProcess({ file: "sh", args: ["-c", "cat; echo read-done"], cwd: "/", env, timeoutMs: 5000 });
    expect(r).toMatchObject({ ending: { kind: "exited", code: 0 }, exitCode: 0, stdoutTail: "read-done\n" });
  });

  it("kills the whole process group at the wall-clock timeout, grandchildren included", async () => {
    const pids: number[] = [];
    const r = await runProcess({
      file: "sh",
      // A grandchild that ignores SIGTERM, then a parent that keeps printing (so the idle watchdog stays quiet).
      args: ["-c", "sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.1; done' & while :; do echo tick; sleep 0.1; done"],
      cwd: "/",
      env,
      timeoutMs: 800,
      idleTimeoutMs: 10_000,
      killGraceMs: 300,
      onStdoutLine: (l) => /^\d+$/.test(l) && pids.push(Number(l)),
    });
    expect(r.ending).toEqual({ kind: "timeout", limitMs: 800 });
    expect(pids).toHaveLength(1);
    expect(await waitGone(pids[0]!)).toBe(true);
  });

  it("kills a silent process at the idle timeout", async () => {
    const r = await runProcess({ file: "sh", args: ["-c", "echo start; sleep 30"], cwd: "/", env, timeoutMs: 20_000, idleTimeoutMs: 400 });
    expect(r.ending).toEqual({ kind: "idle_timeout", idleMs: 400 });
    expect(r.durationMs).toBeLessThan(10_000);
  });

  it("sweeps a background child left behind by a process that exited normally", async () => {
    const pids: number[] = [];
    const r = await runProcess({
      file: "sh",
      args: ["-c", "(sleep 30 >/dev/null 2>&1 & echo $!); exit 0"],
      cwd: "/",
      env,
      timeoutMs: 10_000,
      onStdoutLine: (l) => /^\d+$/.test(l) && pids.push(Number(l)),
    });
    expect(r).toMatchObject({ ending: { kind: "exited", code: 0 }, exitCode: 0 });
    expect(r.sweptPids).toContain(pids[0]);
    expect(await waitGone(pids[0]!)).toBe(true);
  });

  it("ends as canceled on abort, and as timeout when the abort reason is a TimeoutError", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const canceled = await runProcess({ file: "sleep", args: ["30"], cwd: "/", env, timeoutMs: 20_000, signal: controller.signal });
    expect(canceled.ending).toEqual({ kind: "canceled" });
    const timedOut = await runProcess({ file: "sleep", args: ["30"], cwd: "/", env, timeoutMs: 20_000, signal: AbortSignal.timeout(200) });
    // The job's own limit stopped it: the caller knows that limit, so the ending names none.
    expect(timedOut.ending).toEqual({ kind: "timeout" });
  });

  it("kills the CLI's group when skillrig itself is interrupted (the CLI runs detached, so Ctrl-C would miss it)", async () => {
    const script = `import { runProcess } from "@skillrig/process/run-process";
      await runProcess({ file: "sh", args: ["-c", "echo $$; sleep 60"], cwd: "/", env: { PATH: process.env.PATH }, timeoutMs: 60000,
        onStdoutLine: (l) => console.log("child " + l) });`;
    const { execa } = await import("execa");
    const host = execa("node", ["--input-type=module", "-e", script], { cwd: import.meta.dirname, reject: false, buffer: false });
    const childPid = await new Promise<number>((resolve) => {
      host.stdout!.on("data", (d: Buffer) => {
        const m = /child (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
    });
    expect(alive(childPid)).toBe(true);
    host.kill("SIGINT");
    const ended = await host;
    expect(ended.signal).toBe("SIGINT");
    expect(await waitGone(childPid)).toBe(true);
  });

  it("ends as gave_up, with the reason, when shouldStop names one after a line", async () => {
    let lines = 0;
    const r = await runProcess({
      file: "sh",
      args: ["-c", "while :; do echo retrying; sleep 0.1; done"],
      cwd: "/",
      env,
      timeoutMs: 60_000,
      onStdoutLine: () => lines++,
      shouldStop: () => (lines >= 3 ? "stuck retrying" : undefined),
    });
    expect(r.ending).toEqual({ kind: "stopped", reason: "stuck retrying" });
  });

  it("reports a binary that does not exist as spawn_failed", async () => {
    const r = await runProcess({ file: "/nonexistent/gemini", args: [], cwd: "/", env, timeoutMs: 5000 });
    expect(r.ending).toMatchObject({ kind: "spawn_failed", message: expect.stringMatching(/ENOENT/) });
  });
});
