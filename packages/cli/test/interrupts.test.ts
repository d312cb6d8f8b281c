/**
 * Ctrl-C handled once (src/interrupts.ts): a real node process catches SIGINT / SIGTERM as every long command does.
 * The first signal says what it stops, aborts the work and runs the registered cleanups once, and the process lives
 * on to report; a second one ends it at once with 128 + the signal's number; after release a signal has its
 * default meaning again.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "interrupts.js")).href;

/** A command's shape: catch, register a cleanup, work until told; `release` on stdin "release". */
const CHILD = `
import { catchInterrupts } from ${JSON.stringify(MODULE)};
const interrupts = catchInterrupts({ stopping: "the work", warn: (line) => process.stderr.write(line + "\\n") });
interrupts.onStop((signal) => process.stdout.write("cleanup " + signal + " aborted=" + interrupts.signal.aborted + "\\n"));
interrupts.stopped.then((signal) => process.stdout.write("stopped " + signal + "\\n"));
process.stdin.on("data", (d) => { if (String(d).includes("release")) { interrupts.release(); process.stdout.write("released\\n"); } });
setInterval(() => {}, 1000);
process.stdout.write("ready\\n");
`;

function start() {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("exit", (code, signal) => done({ code, signal })),
  );
  const printed = (text: string) =>
    new Promise<void>((done, fail) => {
      const seen = () => stdout.includes(text) || stderr.includes(text);
      const check = () => (seen() ? done() : waiters.push(check));
      check();
      void exited.then(() => (seen() ? done() : fail(new Error(`exited before printing "${text}": ${stdout} ${stderr}`))));
    });
  return { child, exited, printed, out: () => stdout, err: () => stderr };
}

describe("interrupts: Ctrl-C handled once for every command", () => {
  it("first Ctrl-C cancels and cleans up once, the process lives on; a second exits at once with 130", async () => {
    const p = start();
    await p.printed("ready");
    p.child.kill("SIGINT");
    await p.printed("cleanup SIGINT aborted=true");
    await p.printed("stopped SIGINT");
    await p.printed("SIGINT: canceling the work (again to quit at once)");
    expect(p.child.exitCode).toBeNull();
    p.child.kill("SIGINT");
    expect(await p.exited).toEqual({ code: 130, signal: null });
    expect(p.out().match(/cleanup/g)).toHaveLength(1);
  }, 60_000);

  it("SIGTERM is the same, ending with 143 the second time", async () => {
    const p = start();
    await p.printed("ready");
    p.child.kill("SIGTERM");
    await p.printed("cleanup SIGTERM");
    p.child.kill("SIGTERM");
    expect(await p.exited).toEqual({ code: 143, signal: null });
  }, 60_000);

  it("after release a Ctrl-C has its default meaning: the process dies of it, nothing cleaned up", async () => {
    const p = start();
    await p.printed("ready");
    p.child.stdin.write("release\n");
    await p.printed("released");
    p.child.kill("SIGINT");
    expect(await p.exited).toEqual({ code: null, signal: "SIGINT" });
    expect(p.out()).not.toContain("cleanup");
  }, 60_000);
});
