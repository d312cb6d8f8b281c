/** The one place that installs process-wide exit/signal handlers: installed while a cleanup is live, removed after. */
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { cleanUpOnExit, pendingExitCleanups } from "@skillrig/process";

describe("cleanUpOnExit", () => {
  it("hooks exit and the fatal signals only while a cleanup is registered, and unhooks after the last", () => {
    const before = { sigint: process.listenerCount("SIGINT"), sigterm: process.listenerCount("SIGTERM") };
    const forgetFirst = cleanUpOnExit(() => {});
    const forgetSecond = cleanUpOnExit(() => {});
    expect(pendingExitCleanups()).toBe(2);
    // One hook for any number of cleanups.
    expect(process.listenerCount("SIGINT")).toBe(before.sigint + 1);
    expect(process.listenerCount("SIGTERM")).toBe(before.sigterm + 1);
    forgetFirst();
    expect(process.listenerCount("SIGINT")).toBe(before.sigint + 1);
    forgetSecond();
    expect(pendingExitCleanups()).toBe(0);
    expect(process.listenerCount("SIGINT")).toBe(before.sigint);
    expect(process.listenerCount("SIGTERM")).toBe(before.sigterm);
  });

  it("runs every live cleanup at a normal exit, and on SIGTERM ends the process by that signal after them", async () => {
    const script = (ending: string) => `import { cleanUpOnExit } from "@skillrig/process";
      cleanUpOnExit(() => console.log("first cleaned"));
      const forget = cleanUpOnExit(() => console.log("forgotten cleaned"));
      cleanUpOnExit(() => { throw new Error("a failing cleanup"); });
      cleanUpOnExit(() => console.log("last cleaned"));
      forget();
      console.log("ready");
      ${ending}`;
    const normal = await execa("node", ["--input-type=module", "-e", script("process.exitCode = 0;")], {
      cwd: import.meta.dirname,
      reject: false,
    });
    expect(normal.exitCode).toBe(0);
    expect(normal.stdout.split("\n")).toEqual(["ready", "first cleaned", "last cleaned"]);

    const signaled = execa("node", ["--input-type=module", "-e", script("setTimeout(() => {}, 60_000);")], {
      cwd: import.meta.dirname,
      reject: false,
      buffer: true,
    });
    await new Promise<void>((resolve) => signaled.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
    signaled.kill("SIGTERM");
    const ended = await signaled;
    expect(ended.signal).toBe("SIGTERM");
    expect(ended.stdout.split("\n")).toEqual(["ready", "first cleaned", "last cleaned"]);
  });
});
