/**
 * Where samples meet the shared sample host: one host per sandbox, kept until the sandbox closes (started on the
 * first sample, started again after one is lost), and each sample ("pair": a task and a sample) its own space in it:
 *
 *   <root>/code/      sample_harness.py and sample_host.py (read-only inside), and the harness's bytecode from
 *                     the host's cache in code/__pycache__ when there is one (harness-bytecode.ts)
 *   <root>/samples/   one folder per pair, owned by the pair's uid, mode 0700: the snapshot the runner copied in
 *                     (read-only inside: the runtime's mount of it is read-only, so no sample writes into a tree)
 *   <root>/work/      the runtime's writable folder; one folder per pair, owned by the pair's uid, mode 0700, with
 *                     `cases/` (the harness's working folder) and `tmp/` (its TMPDIR)
 *
 * A pair's uid is leased from the sandbox for that pair alone and released (after a sweep of whatever still runs
 * as it) when the pair is closed, so no two samples ever share a uid, and nothing of one meets the next.
 *
 * One host serves every sample of a runner, `--jobs N` of them at once: its own work is only to fork a sample's
 * process and relay bytes; the samples run side by side as processes of their own.
 */
import { chmodSync, lchownSync, lstatSync, readdirSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyDeliverable, type Deliverable, type ResourceLimits, type SandboxProcess } from "@skillrig/core";
import { bytecodeCacheDir, cachedBytecode, compileBytecode } from "./harness-bytecode.js";
import { type PairResult, SOCKET_PATH_BYTES, type SampleUidSupport, SharedHost } from "./shared-host.js";

/** Pairs' worth of disk the runtime's whole working folder may hold (each case is held to its own cap by its harness). */
export const RUNTIME_DISK_PAIRS = 16;

/**
 * The runtime's own limits: it lives as long as the runner, so no wall or CPU limit of its own; each pair gets its
 * own. Its working folder (every pair's cases and temp folder, on the host's disk) is capped as a whole at
 * RUNTIME_DISK_PAIRS case caps by the sandbox: the bound that holds whatever a pair's harness does. Passing it loses
 * the runtime, like its memory cap: the pairs in flight are re-run in sandboxes of their own, where each meets its own.
 */
export function runtimeLimits(fileSizeBytes: number, diskBytes: number): ResourceLimits {
  return {
    wallMs: Number.POSITIVE_INFINITY,
    cpuMs: 2 ** 31,
    memoryBytes: 64 * 1024 ** 3,
    maxProcesses: 4096,
    fileSizeBytes,
    diskBytes: diskBytes * RUNTIME_DISK_PAIRS,
  };
}

export interface SharedPairSpec {
  deliverable: Deliverable;
  functionName: string;
  spares: number;
  limits: ResourceLimits;
}

/** One sample's space and process in the shared host; `close` after its harness stopped. */
export interface SharedPair {
  entryFile: string;
  /** The folder its cases' folders are made in (the pair's working folder, the same path inside the host). */
  casesDir: string;
  process(): SandboxProcess;
  close(): Promise<void>;
}

interface RuntimeSlot {
  runtime: SharedHost;
  root: string;
}

/**
 * The sandbox's one shared host: started on the first sample, started again after one is lost, stopped by the
 * sandbox's `close`.
 */
export class SharedHostSlot {
  readonly #support: SampleUidSupport;
  readonly #python: string;
  readonly #files: { harness: string; runtime: string };
  #current: Promise<RuntimeSlot> | undefined;
  readonly #fileSizeBytes: number;
  readonly #diskBytes: number;
  readonly #bytecodeCache: string | undefined;
  /** A compile of the harness's bytecode for the next command, started on a cache miss; awaited by close(). */
  #compiling: Promise<void> | undefined;
  #nextPair = 1;
  #closed = false;
  readonly #retiring = new Set<Promise<void>>();
  /** The host could not start on this machine: every sample gets a host of its own. */
  #broken = false;

  constructor(options: {
    support: SampleUidSupport;
    python: string;
    harnessFile: string;
    runtimeFile: string;
    fileSizeBytes: number;
    /** A case's disk cap (`sandbox.limits.disk_bytes`). */
    diskBytes: number;
    /** Where the harness's bytecode is cached (default: bytecodeCacheDir(), from the environment); undefined: off. */
    bytecodeCache?: string | undefined;
  }) {
    this.#support = options.support;
    this.#python = options.python;
    this.#files = { harness: options.harnessFile, runtime: options.runtimeFile };
    this.#fileSizeBytes = options.fileSizeBytes;
    this.#diskBytes = options.diskBytes;
    this.#bytecodeCache = "bytecodeCache" in options ? options.bytecodeCache : bytecodeCacheDir();
  }

  get broken(): boolean {
    return this.#broken;
  }

  markBroken(): void {
    this.#broken = true;
  }

  /** True when a sample with these limits fits in the shared host (else it gets a host of its own). */
  fits(limits: ResourceLimits): boolean {
    const runtime = runtimeLimits(this.#fileSizeBytes, this.#diskBytes);
    return (
      (limits.memoryBytes ?? 0) <= (runtime.memoryBytes ?? 0) &&
      (limits.maxProcesses ?? 0) <= (runtime.maxProcesses ?? 0) &&
      (limits.fileSizeBytes ?? 0) <= (runtime.fileSizeBytes ?? 0) &&
      (limits.diskBytes ?? 0) <= (runtime.diskBytes ?? 0)
    );
  }

  /** Leases a uid, copies the snapshot in, and returns the pair (its process starts when `process()` is called). */
  async openPair(spec: SharedPairSpec): Promise<SharedPair | undefined> {
    if (this.#closed) throw new Error("the sample host was closed (the sandbox was closed)");
    const lease = this.#support.leaseSampleUid();
    if (!lease) return undefined;
    const slot = await this.#slot();
    const name = `p${this.#nextPair++}`;
    const sampleDir = join(slot.root, "samples", name);
    const workDir = join(slot.root, "work", name);
    // Processes started as the uid whose end the host has not confirmed (it confirms after its sweep of the uid).
    let unconfirmed = 0;
    const release = async () => {
      await rm(sampleDir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
      lease.release({ hostSwept: unconfirmed === 0 });
    };
    try {
      // 0700 from the start (root's until handed over): another sample never sees a pair's folder while it is made.
      // Side by side: a mkdir costs ~0.25 ms on a busy machine, and the runner's thread waits for none of them.
      await Promise.all([mkdir(sampleDir, { mode: 0o700 }), mkdir(workDir, { mode: 0o700 })]);
      const entryFile = await copyDeliverable(spec.deliverable, join(sampleDir, "deliverable"));
      // Made by the pair process itself, as its uid, inside this folder (sample_host.py): two folders less here.
      const cases = join(workDir, "cases");
      const tmp = join(workDir, "tmp");
      // The runner's channel to the pair's harness: a socket here, in the pair's own 0700 folder (shared-host.ts).
      const channel = join(workDir, "channel");
      // Metadata calls on two folders and a snapshot: microseconds each, not worth a trip through the thread pool.
      for (const dir of [sampleDir, workDir]) {
        chmodSync(dir, 0o700);
        giveTo(dir, lease.uid);
      }
      return {
        entryFile,
        casesDir: cases,
        process: () => {
          const started = slot.runtime.openPair({
            uid: lease.uid,
            entryFile,
            functionName: spec.functionName,
            spares: spec.spares,
            cwd: cases,
            tmp,
            limits: spec.limits,
            ...(Buffer.byteLength(channel) <= SOCKET_PATH_BYTES ? { channel: { path: channel, uid: lease.uid } } : {}),
          });
          unconfirmed++;
          // A lost host confirmed nothing: the release sweeps the uid itself.
          void started.exited.then((end) => {
            if ((end as PairResult).runtimeLost !== true) unconfirmed--;
          });
          return started;
        },
        close: release,
      };
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** The host: the one running, or a new one when there is none or it was lost. */
  async #slot(): Promise<RuntimeSlot> {
    const current = this.#current;
    if (current) {
      const slot = await current.catch(() => undefined);
      if (slot?.runtime.alive) return slot;
      if (this.#current !== current) return this.#slot();
      if (slot) void slot.runtime.stop(0).finally(() => rm(slot.root, { recursive: true, force: true }));
    }
    const starting = this.#start(this.#support);
    this.#current = starting;
    starting.catch(() => {
      if (this.#current === starting) this.#current = undefined;
    });
    return starting;
  }

  async #start(support: SampleUidSupport): Promise<RuntimeSlot> {
    const root = await mkdtemp(join(tmpdir(), "skillrig-host-"));
    try {
      await chmod(root, 0o755);
      for (const dir of ["code", "samples", "work"]) await mkdir(join(root, dir), { mode: 0o755 });
      const harnessFile = join(root, "code", "sample_harness.py");
      const runtimeFile = join(root, "code", "sample_host.py");
      await copyFile(this.#files.harness, harnessFile);
      await copyFile(this.#files.runtime, runtimeFile);
      await this.#addBytecode(support, join(root, "code", "__pycache__"));
      const runtime = new SharedHost({
        support,
        python: this.#python,
        runtimeFile,
        harnessFile,
        workDir: join(root, "work"),
        readOnlyPaths: [join(root, "code"), join(root, "samples")],
        limits: runtimeLimits(this.#fileSizeBytes, this.#diskBytes),
      });
      await runtime.ready;
      return { runtime, root };
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** Copies the harness's cached bytecode into `pycache`; on a miss, starts compiling it for the next runtime. */
  async #addBytecode(support: SampleUidSupport, pycache: string): Promise<void> {
    const python = support.pythonExecutable;
    if (this.#bytecodeCache === undefined || python === undefined) return;
    const cached = await cachedBytecode(this.#bytecodeCache, python, this.#files.harness);
    if (cached === undefined) {
      // A cache that cannot be written only leaves starts as they were: the error is not the run's.
      this.#compiling ??= compileBytecode(this.#bytecodeCache, python, this.#files.harness).catch(() => undefined);
      return;
    }
    await mkdir(pycache, { mode: 0o755 });
    const copy = join(pycache, cached.name);
    await copyFile(cached.file, copy);
    await chmod(copy, 0o644);
  }

  /**
   * A sample's teardown (its harness's stop, then its pair's close), left to finish on its own: `close` waits for
   * it before the host stops (the host must report the sample's end, after its sweep, for the uid to be released).
   */
  retire(teardown: Promise<void>): void {
    const tracked = teardown.catch(() => undefined).finally(() => this.#retiring.delete(tracked));
    this.#retiring.add(tracked);
  }

  /** Stops every runtime and removes its folders (runner.close()). */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#retiring.size > 0) await Promise.all(this.#retiring);
    const starting = this.#current;
    this.#current = undefined;
    const slot = await starting?.catch(() => undefined);
    if (slot) {
      await slot.runtime.stop();
      await rm(slot.root, { recursive: true, force: true });
    }
    await this.#compiling;
  }
}

/** Hands a folder and everything in it to `uid` (lchown: a symlink in a snapshot never hands its target over). */
function giveTo(path: string, uid: number): void {
  const stat = lstatSync(path);
  lchownSync(path, uid, uid);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) giveTo(join(path, entry), uid);
}
