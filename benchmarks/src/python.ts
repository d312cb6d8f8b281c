/**
 * The Python every baseline and the floor run. `python3` on PATH may be a version-manager shim (pyenv's is a
 * shell script that costs ~90 ms per start); the sandbox resolves the real interpreter, so the baselines do too,
 * or they would look slower than they are and flatter skillrig.
 */
import { spawnSync } from "node:child_process";

export interface PythonInfo {
  /** The real interpreter binary behind `python3`. */
  executable: string;
  version: string;
}

export function resolvePython(command = "python3"): PythonInfo {
  const probe = spawnSync(command, ["-c", "import sys, platform; print(sys.executable); print(platform.python_version())"], {
    encoding: "utf8",
  });
  if (probe.status !== 0) {
    throw new Error(`cannot run ${command}: ${probe.error?.message ?? probe.stderr.trim()}; the benchmarks need python3 on PATH`);
  }
  const [executable, version] = probe.stdout.trim().split("\n");
  if (!executable || !version) throw new Error(`${command} did not report sys.executable: ${JSON.stringify(probe.stdout)}`);
  return { executable, version };
}
