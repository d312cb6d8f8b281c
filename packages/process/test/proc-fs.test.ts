/**
 * The /proc reader against processes that name themselves: untrusted code sets its own command name (comm, up to 15
 * bytes of anything but NUL), so the stat parser must read the fields after the LAST ')'. Each hostile name must get
 * the verdict "read right": its real state, its real parent, alive, found in its parent's tree and its group.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  isAlive,
  parseStat,
  processGroupMembers,
  processTree,
  processesUsing,
  readArgv,
  readCwd,
  readRealUid,
  readStat,
} from "@skillrig/process";

const HOSTILE_NAMES = [
  "a) R 1 (b", // a state and a parent of its own choosing after a ')'
  "x) Z 1 1 (y", // would pass for a zombie (so "already dead", never swept) to a first-')' parser
  "nl\n) Z 1\n", // newlines
  ")", // a lone parenthesis
  "((()))", // only parentheses
  "sp a ce s", // spaces
];

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

/** A python process that renames itself to `name` (through /proc/self/comm), then waits; resolves once renamed. */
async function namedProcess(name: string, cwd: string): Promise<ChildProcess> {
  const code = `import sys, time\nopen("/proc/self/comm", "w").write(sys.argv[1])\nprint("ready", flush=True)\ntime.sleep(120)`;
  const child = spawn("python3", ["-c", code, name], { cwd, stdio: ["ignore", "pipe", "inherit"], detached: true });
  started.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`the named process exited early (${code})`)));
  });
  return child;
}

describe("readStat against hostile command names", () => {
  for (const name of HOSTILE_NAMES) {
    it(`reads a process named ${JSON.stringify(name)} right: its state, parent and group, alive, in its parent's tree`, async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "proc-fs-")));
      const child = await namedProcess(name, dir);
      const pid = child.pid!;
      const stat = readStat(pid);
      expect(stat).toMatchObject({ pid, comm: name, ppid: process.pid, pgrp: pid });
      expect(["R", "S"]).toContain(stat!.state);
      expect(isAlive(pid)).toBe(true);
      expect(processTree(process.pid)).toContain(pid);
      expect(processGroupMembers(pid)).toEqual([pid]);
      expect(processesUsing(dir).map((p) => p.pid)).toEqual([pid]);
      expect(readCwd(pid)).toBe(dir);
      expect(readRealUid(pid)).toBe(process.getuid!());
      expect(readArgv(pid)?.at(-1)).toBe(name);

      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      expect(isAlive(pid)).toBe(false);
      expect(readStat(pid)).toBeUndefined();
      expect(processTree(process.pid)).not.toContain(pid);
    });
  }
});

describe("parseStat", () => {
  it("takes the fields after the last ')' whatever the name holds", () => {
    const fields = "S 4242 77 77 0 -1 4194560 1 0 0 0 11 22 33 44 20 0 1 0 987654 1000 100";
    expect(parseStat(`123 (a) Z 1 (b) ${fields}`)).toMatchObject({
      pid: 123,
      comm: "a) Z 1 (b",
      state: "S",
      ppid: 4242,
      pgrp: 77,
      session: 77,
      utime: 11,
      stime: 22,
      cutime: 33,
      cstime: 44,
      startTime: "987654",
    });
    expect(parseStat(`7 (line\n) R 1\n) ${fields}`)).toMatchObject({ pid: 7, comm: "line\n) R 1\n", state: "S", ppid: 4242 });
  });

  it("refuses text that is not a stat line", () => {
    expect(parseStat("")).toBeUndefined();
    expect(parseStat("no parentheses here")).toBeUndefined();
    expect(parseStat("12 (name) 99 1 1")).toBeUndefined();
  });
});

describe("reads of a process that is gone", () => {
  it("return nothing instead of throwing", () => {
    const gone = 2 ** 22 + 1; // above pid_max's largest value: never a process
    expect(readStat(gone)).toBeUndefined();
    expect(readArgv(gone)).toBeUndefined();
    expect(readCwd(gone)).toBeUndefined();
    expect(readRealUid(gone)).toBeUndefined();
    expect(isAlive(gone)).toBe(false);
    expect(processTree(gone)).toEqual([gone]);
  });
});
