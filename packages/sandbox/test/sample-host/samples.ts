/** Test helpers: sample modules in temp folders, and one call of a function sample through `Sandbox.openSample`. */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LIMITS, type ResourceLimits, type Sandbox, type SampleCaseReply } from "@skillrig/core";

const folders: string[] = [];

/** A module in a fresh folder (readable by a per-run uid). */
export async function writeModule(source: string, name = "solution.py"): Promise<{ dir: string; entryFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), "skillrig-sample-test-"));
  folders.push(dir);
  await chmod(dir, 0o755);
  const entryFile = join(dir, name);
  await writeFile(entryFile, source);
  return { dir, entryFile };
}

export async function removeModules(): Promise<void> {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Opens a function sample, calls it once with `args`, closes it. */
export async function callOnce(
  sandbox: Sandbox,
  module: { dir: string; entryFile: string },
  functionName: string,
  args: unknown[],
  limits: ResourceLimits = DEFAULT_LIMITS,
): Promise<SampleCaseReply> {
  const sample = await sandbox.openSample!({
    program: { kind: "function", entryFile: module.entryFile, functionName },
    snapshotDir: module.dir,
    concurrency: 1,
    cases: 1,
    limits: { ...limits, wallMs: 60_000 },
  });
  try {
    if (!sample.load.ok) throw new Error(`the sample did not load: ${sample.load.message}`);
    return await sample.run({ limits, argsJson: JSON.stringify(args) });
  } finally {
    await sample.close();
  }
}
