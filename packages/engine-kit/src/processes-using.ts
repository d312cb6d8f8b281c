/**
 * Live processes whose working directory or command line mentions a path: how a test (ours or a user's engine
 * plugin's) proves that a run left no process behind in its run folder. Linux /proc only.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface LiveProcess {
  pid: number;
  /** The command line, truncated to 200 characters. */
  cmd: string;
}

export function processesUsing(path: string): LiveProcess[] {
  const out: LiveProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue; // a zombie holds nothing
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        // another user's process: its cwd is not ours to read
      }
      if (cmd.includes(path) || cwd.startsWith(path)) out.push({ pid: Number(name), cmd: cmd.slice(0, 200) });
    } catch {
      // exited while we looked
    }
  }
  return out;
}
