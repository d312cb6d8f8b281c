/**
 * Where a whole `skillrig` command's time goes, from `node --cpu-prof` (the CLI prints no timestamps of its own):
 * the command runs once more with a CPU profile, and each sample of the profile is put in one phase by its stack.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "./run-process.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CommandPhases {
  /** The whole process, spawn to exit, as timed from outside. */
  wallMs: number;
  /** Before the profiler's first sample and after its last: starting Node (and V8), and writing the profile at exit. */
  nodeStartMs: number;
  /** Samples under Node's module loader: resolving, reading, compiling and evaluating modules. */
  modulesMs: number;
  /** Samples with the main thread idle: waiting on child processes (the sandbox, the sample, its cases) and on I/O. */
  waitingMs: number;
  /** Garbage collection and native work outside any JavaScript frame. */
  nativeMs: number;
  /** The rest, JavaScript running after loading, by the package of its nearest frame that has one (largest first). */
  jsByPackage: Array<[string, number]>;
  /** What the command printed on stdout (the JSON report, for a test). */
  stdout: string;
}

const LOADER = /^node:internal\/modules\//;

/** The package a frame's file belongs to: a workspace package or plugin, or a dependency under node_modules. */
function packageOf(url: string): string | undefined {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
  if (dependency) return dependency[1];
  const workspace = /\/(packages|plugins)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return undefined;
}

/** Runs `node --cpu-prof <args>` and splits the process's time into phases; throws when the command fails. */
export async function commandPhases(
  args: string[],
  options: { cwd: string; workDir: string; okExitCodes?: number[] },
): Promise<CommandPhases> {
  const dir = mkdtempSync(join(options.workDir, "cpu-prof-"));
  try {
    const run = await runProcess(process.execPath, ["--cpu-prof", "--cpu-prof-dir", dir, ...args], { cwd: options.cwd });
    if (!(options.okExitCodes ?? [0]).includes(run.exitCode ?? -1))
      throw new Error(`node --cpu-prof ${args.slice(1).join(" ")} exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
    const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error(`node --cpu-prof wrote no profile into ${dir}`);
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    return { ...classify(profile, run.wallMs), stdout: run.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function classify(profile: CpuProfile, wallMs: number): Omit<CommandPhases, "stdout"> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // One phase per profile node, decided once from its stack (leaf first).
  const phaseOf = new Map<number, string>();
  const phase = (id: number): string => {
    const known = phaseOf.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame.functionName;
    let result: string;
    if (leaf === "(idle)") result = "waiting";
    else if (leaf === "(garbage collector)" || leaf === "(program)") result = "native";
    else {
      // Node's built-ins count for the package that called them: the nearest frame that belongs to one.
      let owner: string | undefined;
      let builtIn = false;
      let loading = false;
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const url = byId.get(at)!.callFrame.url;
        if (LOADER.test(url)) loading = true;
        if (url.startsWith("node:")) builtIn = true;
        owner ??= url ? packageOf(url) : undefined;
      }
      result = loading ? "modules" : `js:${owner ?? (builtIn ? "Node's own (no package on the stack)" : "other")}`;
    }
    phaseOf.set(id, result);
    return result;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = phase(id);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const spanMs = (profile.endTime - profile.startTime) / 1000;
  return {
    wallMs,
    nodeStartMs: Math.max(0, wallMs - spanMs),
    modulesMs: totals.get("modules") ?? 0,
    waitingMs: totals.get("waiting") ?? 0,
    nativeMs: totals.get("native") ?? 0,
    jsByPackage: [...totals.entries()]
      .filter(([key]) => key.startsWith("js:"))
      .map(([key, ms]): [string, number] => [key.slice(3), ms])
      .sort((a, b) => b[1] - a[1]),
  };
}
