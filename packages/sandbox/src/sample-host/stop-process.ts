import type { SandboxProcess } from "@skillrig/core";

/**
 * Ends a long-lived sandboxed process the polite way first: its input closes (the harness and the shared host
 * both take end of input as "kill what still runs and exit"), and the whole tree is killed if it lingers past
 * `graceMs`, or once it is gone (the sandbox then sweeps what the process left behind).
 */
export async function stopProcess(process: SandboxProcess, graceMs: number): Promise<void> {
  process.stdin.end();
  const timer = setTimeout(() => process.kill(), graceMs);
  try {
    await process.exited.catch(() => undefined);
  } finally {
    clearTimeout(timer);
    process.kill();
  }
}
