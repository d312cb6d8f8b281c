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
import { spawn } from "node:child_process";
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

export function startSandboxedProcess(options: StartOptions): StartedProcess {
  const { plan, limits } = options;
  if (plan.caseOwner !== undefined) giveCaseFolderTo(options.cwd, plan.caseOwner);
  if (plan.mustReach) makeReachable(options.cwd, plan.mustReach);

  const started = performance.now();
  const subprocess = spawn(plan.file, plan.args, {
    cwd: options.cwd,
    // Exactly the plan's environment: nothing of the runner's own leaks in.
    env: plan.env,
    detached: true,
    stdio: plan.seccompFilter
      ? ["pipe", "pipe", "pipe", "pipe", "pipe"]
      : plan.infoFd
        ? ["pipe", "pipe", "pipe", "pipe"]
        : ["pipe", "pipe", "pipe"],
  });
  // Settles once the process has exited and every pipe is closed, or at once when it could not be started.
  const ended = new Promise<{ startError?: Error }>((resolve) => {
    subprocess.once("close", () => resolve({}));
    subprocess.once("error", (error) => {
      // 'error' without a pid: the program never started (missing executable, bad folder); no 'close' follows.
      if (subprocess.pid === undefined) resolve({ startError: error });
    });
  });
  const pid = subprocess.pid;
  if (plan.seccompFilter) {
    // bubblewrap reads the filter to its end before it starts the code.
    const filterPipe = subprocess.stdio[4] as Writable | undefined;
    filterPipe?.on("error", () => {});
    filterPipe?.end(plan.seccompFilter);
  }

  let namespaceInit: number | undefined;
  let timedOut = false;
  let outputLimited = false;
  let killedByUs = false;
  let exited = false;

  const killTree = (): void => {
    killedByUs = true;
    // The namespace's pid 1 first: the kernel then kills everything inside, detached or not.
    if (namespaceInit !== undefined && isAlive(namespaceInit)) signalQuietly(namespaceInit, "SIGKILL");
    if (pid !== undefined) signalQuietly(-pid, "SIGKILL");
    if (plan.marker) sweepMarkedProcesses(plan.marker);
  };
  // Killed if the runner's own process exits (or is ended by a signal) first.
  const forgetTree = cleanUpOnExit(killTree);

  if (plan.infoFd) {
    const info = subprocess.stdio[3] as Readable | undefined;
    let text = "";
    info?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match && namespaceInit === undefined) {
        namespaceInit = Number(match[1]);
        // Killed before bubblewrap told us its pid 1: finish the job now.
        if (killedByUs) killTree();
      }
    });
    info?.on("error", () => {});
  }

  // The tree as a whole (pid namespace only): see memory-watchdog.ts.
  let treeMemoryExceeded = false;
  const memoryCap = plan.infoFd ? treeMemoryCap(limits.memoryBytes, limits.maxProcesses, options.treeMemoryCeiling) : undefined;
  const stopMemoryWatch =
    memoryCap === undefined
      ? undefined
      : watchTreeMemory({
          namespaceInit: () => namespaceInit,
          capBytes: memoryCap,
          onExceeded: () => {
            treeMemoryExceeded = true;
            killTree();
          },
        });

  // The tree's CPU (a case's time limit) and its working folder's size, sampled: see usage-watchdog.ts.
  let cpuTreeExceeded = false;
  let diskExceeded = false;
  const stopUsageWatch = watchTreeUsage({
    root: () => pid,
    cpuLimitMs: limits.cpuTreeMs,
    folder: options.cwd,
    diskBytes: limits.diskBytes,
    diskEntries: DISK_ENTRY_LIMIT,
    // A case is watched every tick; a long-lived spawn() (a harness, the shared host) is a backstop, once a second.
    intervalMs: options.mode === "run" ? undefined : 1000,
    onExceeded: (what) => {
      if (what === "cpu") cpuTreeExceeded = true;
      else diskExceeded = true;
      killTree();
    },
  });

  // setTimeout fires at once for delays past 2^31-1 ms; a longer limit is as good as none.
  const wallTimer =
    Number.isFinite(limits.wallMs) && limits.wallMs > 0 && limits.wallMs < 2 ** 31
      ? setTimeout(() => {
          timedOut = true;
          killTree();
        }, limits.wallMs)
      : undefined;
  const onAbort = (): void => killTree();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) killTree();

  // stdin: feed and close for run(); spawn() hands the pipe to the caller.
  const childStdin = subprocess.stdin as Writable;
  childStdin.on("error", () => {}); // The code may exit without reading its input.
  if (options.mode === "run") childStdin.end(options.stdin ?? "");

  const stdoutCapture = new BoundedCapture(limits.outputBytes);
  const stderrCapture = new BoundedCapture(limits.outputBytes);
  const capOutput = options.mode === "run" || options.capSpawnOutput === true;
  const onOverflow = (): void => {
    if (capOutput && !outputLimited) {
      outputLimited = true;
      killTree();
    }
  };
  const childStdout = subprocess.stdout as Readable;
  const childStderr = subprocess.stderr as Readable;
  let stdoutForCaller: Readable = childStdout;
  let stderrForCaller: Readable = childStderr;
  if (options.mode === "run") {
    childStdout.on("data", (chunk: Buffer) => stdoutCapture.add(chunk) || onOverflow());
    childStderr.on("data", (chunk: Buffer) => stderrCapture.add(chunk) || onOverflow());
  } else {
    // spawn(): the caller reads the pipes; we count what passes (and keep the start of stderr for the result).
    const counting = (capture: BoundedCapture) =>
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          const within = (capture.total += chunk.length) <= capture.cap;
          if (!within) onOverflow();
          done(null, within || !capOutput ? chunk : undefined);
        },
      });
    stdoutForCaller = childStdout.pipe(counting(stdoutCapture));
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
    stderrForCaller = stderrPass;
  }

  let exitCode: number | null = null;
  let exitSignal: string | null = null;
  subprocess.once("exit", (code, signal) => {
    exitCode = code;
    exitSignal = signal;
    exited = true;
    // Without a pid namespace, children left behind (same group or detached) go now, so the pipes close.
    if (plan.marker !== undefined) {
      if (pid !== undefined) signalQuietly(-pid, "SIGKILL");
      sweepMarkedProcesses(plan.marker);
    }
  });

  const result = (async (): Promise<SandboxResult> => {
    const { startError } = await ended;
    exited = true;
    clearTimeout(wallTimer);
    stopMemoryWatch?.();
    stopUsageWatch();
    options.signal?.removeEventListener("abort", onAbort);
    // bubblewrap's monitor only exits once its pid 1 (and so the whole namespace) is gone, unless we
    // killed the monitor first; then wait for the namespace to empty.
    if (namespaceInit !== undefined) await waitUntilGone(namespaceInit);
    if (plan.marker !== undefined) sweepMarkedProcesses(plan.marker);
    forgetTree();
    const durationMs = performance.now() - started;
    // Once more now the tree is gone and nothing changes the folder: what it left is over the cap or not, whatever
    // the samples saw.
    if (!diskExceeded && Number.isFinite(limits.diskBytes)) {
      const usage = folderUsage(options.cwd, limits.diskBytes, DISK_ENTRY_LIMIT);
      diskExceeded = usage.bytes > limits.diskBytes || usage.entries > DISK_ENTRY_LIMIT;
    }
    // The program could not be started at all (missing executable, bad folder): say so in stderr.
    const startFailure = startError !== undefined && !killedByUs;
    if (startFailure) stderrCapture.add(Buffer.from(`sandbox: could not start ${plan.file}: ${startError.message}\n`));
    if (exitCode === null && exitSignal === null && startFailure) exitCode = 127;

    let code: number | null = exitCode;
    let signal: string | null = exitSignal;
    if (plan.exitCodeEncodesSignal && code !== null && code > 128 && code <= 128 + 64) {
      signal = SIGNAL_NAMES.get(code - 128) ?? signal;
      code = null;
    }
    const stderr = stderrCapture.text();
    const killedByLimit = signal === "SIGKILL" && !killedByUs;
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
      timedOut,
      outputLimited,
      memoryLimited: (endedBadly && MEMORY_EVIDENCE.test(stderr)) || killedByLimit || treeMemoryExceeded,
      cpuLimited: signal === "SIGXCPU" || cpuTreeExceeded,
      fileSizeLimited: signal === "SIGXFSZ" || (endedBadly && FILE_SIZE_EVIDENCE.test(stderr)),
      diskLimited: diskExceeded,
      isolation: plan.isolation,
    };
  })();

  return {
    stdin: childStdin,
    stdout: stdoutForCaller,
    stderr: stderrForCaller,
    pid,
    kill: () => {
      if (!exited) killTree();
    },
    exited: result,
  };
}
