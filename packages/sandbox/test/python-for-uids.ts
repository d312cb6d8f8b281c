/**
 * As root, every level runs the code as a per-run uid, and at "rlimits" and "none" that uid reaches python3
 * through the host's own tree: a pyenv under /root (mode 0700, as on the development machine) is refused by name
 * (hostile.test.ts checks that). Test files that run python3 at every level import this first: it puts a python3
 * other users can run (Debian's /usr/bin/python3) first on PATH before anything probes the host, for this process
 * and the processes it starts.
 */
import { existsSync } from "node:fs";

if (process.getuid?.() === 0 && existsSync("/usr/bin/python3") && !process.env.PATH?.startsWith("/usr/bin:")) {
  process.env.PATH = `/usr/bin:${process.env.PATH ?? "/bin"}`;
}
