/**
 * Runs one launch plan: spawns it in its own process group, enforces the wall clock and the output caps by
 * killing the whole tree, and turns what happened into a SandboxResult.
 *
 * It spawns with node:child_process, not execa (the house standard elsewhere): it uses nothing of execa's beyond
 * the spawn (the group kill, the caps, the pipes and the result are its own), and execa's 119 modules took about
 * 120 ms of every `skillrig test` start-up to load.
 */
import { PassThrough, type Readable, Transform, type Writable } from "node:stream";
import { constants as osConstants } from "node:os";
import { type ChildProcess, spawn } from "node:child_process";
import { DISK_ENTRY_LIMIT, type SandboxResult } from "@skillrig/core";
import { cleanUpOnExit, FILE_SIZE_EVIDENCE, isAlive, MEMORY_EVIDENCE, signalQuietly, waitUntilGone } from "@skillrig/process";
import { giveCaseFolderTo, makeReachable } from "./folder-access.js";
import type { LaunchPlan } from "./launch-plan.js";
import type { EffectiveLimits } from "./limits.js";
import { treeMemoryCap, watchTreeMemory } from "./memory-watchdog.js";
import { sweepMarkedProcesses } from "./process-tree.js";
import { folderUsage, watchTreeUsage } from "./usage-watchdog.js";

export interface StartOptions {
  plan: LaunchPlan;
  command: string[];
  cwd: string;
  limits: EffectiveLimits;
  stdin?: string | Uint8Array;
  signal?: AbortSignal;
  /** run(): keep stdout/stderr (bounded) in the result. spawn(): hand the pipes to the caller. */
  mode: "run" | "spawn";
  /** spawn(): cap the bytes passed through stdout/stderr only when the caller asked for it. */
  capSpawnOutput?: boolean;
  /** The most memory (PSS) one run's whole tree may hold; see memory-watchdog.ts. */
  treeMemoryCeiling: number;
}

export interface StartedProcess {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  pid: number | undefined;
  kill(): void;
  exited: Promise<SandboxResult>;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, number]) => [number as number, name]));

/** Keeps the first `cap` bytes of a stream and notes when more arrived. */
class BoundedCapture {
  readonly chunks: Buffer[] = [];
  kept = 0;
  total = 0;
  constructor(readonly cap: number) {}
  /** Returns false once the cap is passed. */
  add(chunk: Buffer): boolean {
    this.total += chunk.length;
    if (this.kept < this.cap) {
      const slice = chunk.subarray(0, this.cap - this.kept);
      this.chunks.push(slice);
      this.kept += slice.length;
    }
    return this.total <= this.cap;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** Which limit stopped the run, each set by the watchdog or bound that saw it passed. */
interface LimitsPassed {
  wall: boolean;
  output: boolean;
  treeMemory: boolean;
  cpuTree: boolean;
  disk: boolean;
}

/**
 * The launched tree while it runs: its pids (the group's and, in a pid namespace, the namespace's pid 1 once
 * bubblewrap tells it), whether we killed it and for which limit, and how its leader exited.
 */
class SandboxedTree {
  namespaceInit: number | undefined;
  killedByUs = false;
  exited = false;
  exitCode: number | null = null;
  exitSignal: string | null = null;
  readonly passed: LimitsPassed = { wall: false, output: false, treeMemory: false, cpuTree: false, disk: false };

  constructor(
    readonly pid: number | undefined,
    readonly marker: string | undefined,
  ) {}

  killTree(): void {
    this.killedByUs = true;
    // The namespace's pid 1 first: the kernel then kills everything inside, detached or not.
    if (this.namespaceInit !== undefined && isAlive(this.namespaceInit)) signalQuietly(this.namespaceInit, "SIGKILL");
    if (this.pid !== undefined) signalQuietly(-this.pid, "SIGKILL");
    if (this.marker) sweepMarkedProcesses(this.marker);
  }

  /** A limit was passed: note which, and kill the tree. */
  stopFor(limit: keyof LimitsPassed): void {
    this.passed[limit] = true;
    this.killTree();
  }
}

/** Spawns the plan in a group of its own, with the pipes it needs (bubblewrap's info and seccomp filter too). */
function spawnPlan(plan: LaunchPlan, cwd: string): ChildProcess {
  return spawn(plan.file, plan.args, {
    cwd,
    // Exactly the plan's environment: nothing of the runner's own leaks in.
    env: plan.env,
    detached: true,
    stdio: plan.seccompFilter
      ? ["pipe", "pipe", "pipe", "pipe", "pipe"]
      : plan.infoFd
        ? ["pipe", "pipe", "pipe", "pipe"]
        : ["pipe", "pipe", "pipe"],
  });
}

/** Settles once the process has exited and every pipe is closed, or at once when it could not be started. */
function endOf(subprocess: ChildProcess): Promise<{ startError?: Error }> {
  return new Promise<{ startError?: Error }>((resolve) => {
    subprocess.once("close", () => resolve({}));
    subprocess.once("error", (error) => {
      // 'error' without a pid: the program never started (missing executable, bad folder); no 'close' follows.
      if (subprocess.pid === undefined) resolve({ startError: error });
    });
  });
}

/** bubblewrap reads the seccomp filter (fd 4) to its end before it starts the code. */
function feedSeccompFilter(subprocess: ChildProcess, filter: Buffer): void {
  const filterPipe = subprocess.stdio[4] as Writable | undefined;
  filterPipe?.on("error", () => {});
  filterPipe?.end(filter);
}

/** bubblewrap's info fd (3) names the namespace's pid 1 ("child-pid"), which killTree kills first. */
function learnNamespaceInit(subprocess: ChildProcess, tree: SandboxedTree): void {
  const info = subprocess.stdio[3] as Readable | undefined;
  let text = "";
  info?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (match && tree.namespaceInit === undefined) {
      tree.namespaceInit = Number(match[1]);
      // Killed before bubblewrap told us its pid 1: finish the job now.
      if (tree.killedByUs) tree.killTree();
    }
  });
  info?.on("error", () => {});
}

/** The tree's memory, CPU and folder watchdogs, the wall clock and the caller's signal; returns what removes them. */
function watchLimits(options: StartOptions, tree: SandboxedTree): () => void {
  const { plan, limits } = options;
  // The tree as a whole (pid namespace only): see memory-watchdog.ts.
  const memoryCap = plan.infoFd ? treeMemoryCap(limits.memoryBytes, limits.maxProcesses, options.treeMemoryCeiling) : undefined;
  const stopMemoryWatch =
    memoryCap === undefined
      ? undefined
      : watchTreeMemory({ namespaceInit: () => tree.namespaceInit, capBytes: memoryCap, onExceeded: () => tree.stopFor("treeMemory") });

  // The tree's CPU (a case's time limit) and its working folder's size, sampled: see usage-watchdog.ts.
  const stopUsageWatch = watchTreeUsage({
    root: () => tree.pid,
    cpuLimitMs: limits.cpuTreeMs,
    folder: options.cwd,
    diskBytes: limits.diskBytes,
    diskEntries: DISK_ENTRY_LIMIT,
    // A case is watched every tick; a long-lived spawn() (a harness, the shared host) is a backstop, once a second.
    intervalMs: options.mode === "run" ? undefined : 1000,
    onExceeded: (what) => tree.stopFor(what === "cpu" ? "cpuTree" : "disk"),
  });

  // setTimeout fires at once for delays past 2^31-1 ms; a longer limit is as good as none.
  const wallTimer =
    Number.isFinite(limits.wallMs) && limits.wallMs > 0 && limits.wallMs < 2 ** 31
      ? setTimeout(() => tree.stopFor("wall"), limits.wallMs)
      : undefined;
  const onAbort = (): void => tree.killTree();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) tree.killTree();
  return () => {
    clearTimeout(wallTimer);
    stopMemoryWatch?.();
    stopUsageWatch();
    options.signal?.removeEventListener("abort", onAbort);
  };
}

/** The pipes as the caller sees them, and what was kept of stdout and stderr for the result. */
interface RoutedOutput {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  stdoutCapture: BoundedCapture;
  stderrCapture: BoundedCapture;
}

/**
 * stdin: fed and closed for run(); spawn() hands the pipe to the caller. stdout and stderr: kept (bounded) for
 * run(); passed to the caller and counted for spawn(). Past `outputBytes` (when capped) the tree is killed.
 */
function routeOutput(subprocess: ChildProcess, options: StartOptions, tree: SandboxedTree): RoutedOutput {
  const { limits } = options;
  const childStdin = subprocess.stdin as Writable;
  childStdin.on("error", () => {}); // The code may exit without reading its input.
  if (options.mode === "run") childStdin.end(options.stdin ?? "");

  const stdoutCapture = new BoundedCapture(limits.outputBytes);
  const stderrCapture = new BoundedCapture(limits.outputBytes);
  const capOutput = options.mode === "run" || options.capSpawnOutput === true;
  const onOverflow = (): void => {
    if (capOutput && !tree.passed.output) tree.stopFor("output");
  };
  const childStdout = subprocess.stdout as Readable;
  const childStderr = subprocess.stderr as Readable;
  const routed = { stdin: childStdin, stdout: childStdout, stderr: childStderr, stdoutCapture, stderrCapture };
  if (options.mode === "run") {
    childStdout.on("data", (chunk: Buffer) => stdoutCapture.add(chunk) || onOverflow());
    childStderr.on("data", (chunk: Buffer) => stderrCapture.add(chunk) || onOverflow());
    return routed;
  }
  // spawn(): the caller reads the pipes; we count what passes (and keep the start of stderr for the result).
  const counting = (capture: BoundedCapture) =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const within = (capture.total += chunk.length) <= capture.cap;
        if (!within) onOverflow();
        done(null, within || !capOutput ? chunk : undefined);
      },
    });
  // stderr never holds the child up, even when the caller does not read it: we keep (and pass on) the
  // first `outputBytes` and drop the rest.
  const stderrPass = new PassThrough();
  childStderr.on("data", (chunk: Buffer) => {
    const keptBefore = stderrCapture.kept;
    if (!stderrCapture.add(chunk)) onOverflow();
    if (stderrCapture.kept > keptBefore) stderrPass.write(chunk.subarray(0, stderrCapture.kept - keptBefore));
  });
  childStderr.on("end", () => stderrPass.end());
  childStderr.on("error", () => stderrPass.end());
  return { ...routed, stdout: childStdout.pipe(counting(stdoutCapture)), stderr: stderrPass };
}

/** Notes how the leader exited; without a pid namespace, children left behind (same group or detached) go now, so the pipes close. */
function noteExit(subprocess: ChildProcess, tree: SandboxedTree): void {
  subprocess.once("exit", (code, signal) => {
    tree.exitCode = code;
    tree.exitSignal = signal;
    tree.exited = true;
    if (tree.marker !== undefined) {
      if (tree.pid !== undefined) signalQuietly(-tree.pid, "SIGKILL");
      sweepMarkedProcesses(tree.marker);
    }
  });
}

/** Once the tree is gone: the folder's size checked once more, a start failure said in stderr, then the result. */
function resultOf(
  options: StartOptions,
  tree: SandboxedTree,
  output: RoutedOutput,
  startError: Error | undefined,
  durationMs: number,
): SandboxResult {
  const { plan, limits } = options;
  const { stdoutCapture, stderrCapture } = output;
  // Once more now the tree is gone and nothing changes the folder: what it left is over the cap or not, whatever
  // the samples saw.
  if (!tree.passed.disk && Number.isFinite(limits.diskBytes)) {
    const usage = folderUsage(options.cwd, limits.diskBytes, DISK_ENTRY_LIMIT);
    tree.passed.disk = usage.bytes > limits.diskBytes || usage.entries > DISK_ENTRY_LIMIT;
  }
  // The program could not be started at all (missing executable, bad folder): say so in stderr.
  const startFailure = startError !== undefined && !tree.killedByUs;
  if (startFailure) stderrCapture.add(Buffer.from(`sandbox: could not start ${plan.file}: ${startError.message}\n`));
  if (tree.exitCode === null && tree.exitSignal === null && startFailure) tree.exitCode = 127;

  let code: number | null = tree.exitCode;
  let signal: string | null = tree.exitSignal;
  if (plan.exitCodeEncodesSignal && code !== null && code > 128 && code <= 128 + 64) {
    signal = SIGNAL_NAMES.get(code - 128) ?? signal;
    code = null;
  }
  const stderr = stderrCapture.text();
  const killedByLimit = signal === "SIGKILL" && !tree.killedByUs;
  // What stderr says counts only when the run ended badly: code that catches a MemoryError, reports it
  // and exits 0 was not stopped by a limit.
  const endedBadly = code !== 0;
  return {
    command: options.command,
    exitCode: code,
    signal,
    stdout: options.mode === "run" ? stdoutCapture.text() : "",
    stderr,
    durationMs,
    timedOut: tree.passed.wall,
    outputLimited: tree.passed.output,
    memoryLimited: (endedBadly && MEMORY_EVIDENCE.test(stderr)) || killedByLimit || tree.passed.treeMemory,
    cpuLimited: signal === "SIGXCPU" || tree.passed.cpuTree,
    fileSizeLimited: signal === "SIGXFSZ" || (endedBadly && FILE_SIZE_EVIDENCE.test(stderr)),
    diskLimited: tree.passed.disk,
    isolation: plan.isolation,
  };
}

export function startSandboxedProcess(options: StartOptions): StartedProcess {
  const { plan } = options;
  if (plan.caseOwner !== undefined) giveCaseFolderTo(options.cwd, plan.caseOwner);
  if (plan.mustReach) makeReachable(options.cwd, plan.mustReach);

  const started = performance.now();
  const subprocess = spawnPlan(plan, options.cwd);
  const ended = endOf(subprocess);
  if (plan.seccompFilter) feedSeccompFilter(subprocess, plan.seccompFilter);

  const tree = new SandboxedTree(subprocess.pid, plan.marker);
  // Killed if the runner's own process exits (or is ended by a signal) first.
  const forgetTree = cleanUpOnExit(() => tree.killTree());
  if (plan.infoFd) learnNamespaceInit(subprocess, tree);
  const unwatch = watchLimits(options, tree);
  const output = routeOutput(subprocess, options, tree);
  noteExit(subprocess, tree);

  const result = (async (): Promise<SandboxResult> => {
    const { startError } = await ended;
    tree.exited = true;
    unwatch();
    // bubblewrap's monitor only exits once its pid 1 (and so the whole namespace) is gone, unless we
    // killed the monitor first; then wait for the namespace to empty.
    if (tree.namespaceInit !== undefined) await waitUntilGone(tree.namespaceInit);
    if (plan.marker !== undefined) sweepMarkedProcesses(plan.marker);
    forgetTree();
    return resultOf(options, tree, output, startError, performance.now() - started);
  })();

  return {
    stdin: output.stdin,
    stdout: output.stdout,
    stderr: output.stderr,
    pid: tree.pid,
    kill: () => {
      if (!tree.exited) tree.killTree();
    },
    exited: result,
  };
}
