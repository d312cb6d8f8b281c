/**
 * `Sandbox.openSample`: a sample loaded once in the sample host, its cases run in forks of it.
 *
 *   shared   root at level namespaces: the sandbox's one shared host (shared-host-slot.ts) forks the sample's
 *            process under a uid leased for this sample alone; a fork per case
 *   own      elsewhere (or `shareHost: false`, or a sample too big for the shared host): the same harness started
 *            through the sandbox for this sample alone; a fork per case
 *
 * What this module adds over the harness client is what a sample needs to survive what is not its doing: when the
 * shared host is lost (it died, stalled or misbehaved, maybe through another sample), the sample moves to a host of
 * its own and the cases in flight run again there; when the sample's own harness dies, it is started again (up to
 * `maxRestarts`) and the case that was running is reported `lost`. Nothing here decides a status: the deliverable
 * type maps each reply.
 */
import { chmod, copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DISK_ENTRY_LIMIT,
  isSkillrigError,
  type OpenSample,
  type ResourceLimits,
  type Sandbox,
  type SampleCase,
  type SampleCaseReply,
  type SampleLoad,
  type SampleOpenOptions,
} from "@skillrig/core";
import type { CaseReply, CaseRequest } from "./protocol.js";
import { CaseOverranError, type HarnessLoad, HarnessDiedError, SampleHarness, type HarnessStartOptions } from "./sample-harness.js";
import type { SampleUidSupport } from "@skillrig/core";
import type { SharedHostSlot, SharedPair } from "./shared-host-slot.js";

/** The harness shipped next to the compiled code (copy-assets puts it in dist). */
export const HARNESS_FILE = join(dirname(fileURLToPath(import.meta.url)), "sample_harness.py");
export const HOST_FILE = join(dirname(fileURLToPath(import.meta.url)), "sample_host.py");

/** What the sandbox lends its samples. */
export interface SampleHostContext {
  sandbox: Sandbox;
  /** Per-sample uids and the host's spawn (root at level namespaces); undefined: every sample gets a host of its own. */
  uids: SampleUidSupport | undefined;
  /** The sandbox's shared host, started on first use. */
  shared(): SharedHostSlot;
}

/** Where a sample's harness runs now. */
type Place = { where: "shared"; pair: SharedPair; detach(): void } | { where: "own"; root: string };

/** The sample's harness where it runs now, and how to start it again there. */
interface Hosting {
  place: Place;
  harness: SampleHarness;
  load: HarnessLoad;
  start(): Promise<{ harness: SampleHarness; load: HarnessLoad }>;
}

/** An open sample as this sandbox makes it: the contract, plus what its tests and diagnostics look at. */
export interface HostedSample extends OpenSample {
  /** Times its harness was started again after it died. */
  readonly restarts: number;
  /** Kills its harness now and waits until it is gone (tests: what a crash does to the cases that follow). */
  killHarness(): Promise<void>;
}

export async function openSample(context: SampleHostContext, options: SampleOpenOptions): Promise<HostedSample> {
  const sample = new SampleInHost(context, options);
  await sample.open();
  return sample;
}

/**
 * One sample in the host, as named steps:
 *
 *   open          startShared (a pair of the sandbox's shared host) or else startOwn (a host of its own)
 *   run           revive the harness when it died: leaveShared (the shared host was lost: a host of its own, once)
 *                 or restart (its own harness died: up to maxRestarts) -> send the case -> its reply;
 *                 a case whose fork server died under it -> runAgain (one re-run at a time)
 *   close         shared: retire (its end and teardown off the runner's path); own: stop, remove its folder
 */
class SampleInHost implements HostedSample {
  readonly #context: SampleHostContext;
  readonly #options: SampleOpenOptions;
  readonly #settings: { python: string; loadTimeoutMs: number; stuckGraceMs: number; maxRestarts: number };
  /** Cases its harness runs at once (and spares it forks ahead). */
  readonly #spares: number;
  #hosting!: Hosting;
  #restarts = 0;
  /** A restart under way, shared by every case that noticed the harness died. */
  #restarting: Promise<void> | undefined;
  /** The move to a host of its own, once the shared host was lost. */
  #leavingShared: Promise<void> | undefined;
  /** Cases run again after their harness died under them, one at a time (the last in the chain). */
  #rerunning: Promise<unknown> | undefined;

  constructor(context: SampleHostContext, options: SampleOpenOptions) {
    this.#context = context;
    this.#options = options;
    this.#settings = {
      python: options.python ?? "python3",
      loadTimeoutMs: options.loadTimeoutMs ?? 30_000,
      stuckGraceMs: options.stuckGraceMs ?? 5000,
      maxRestarts: options.maxRestarts ?? 3,
    };
    this.#spares = Math.min(Math.max(1, Math.floor(options.concurrency)), 8);
  }

  get load(): SampleLoad {
    return loadOf(this.#hosting.load);
  }

  get isolation() {
    return this.#hosting.harness.isolation;
  }

  get restarts() {
    return this.#restarts;
  }

  async open(): Promise<void> {
    this.#hosting = (await this.#startShared()) ?? (await this.#startOwn());
  }

  async killHarness(): Promise<void> {
    this.#hosting.harness.kill();
    await this.#hosting.harness.exited.catch(() => undefined);
  }

  run = (testCase: SampleCase): Promise<SampleCaseReply> => this.#run(testCase, false);

  async close(): Promise<void> {
    await this.#leavingShared?.catch(() => undefined);
    await this.#restarting?.catch(() => undefined);
    const { place, harness } = this.#hosting;
    if (place.where === "shared") {
      place.detach();
      // Every answer of the sample is in: its harness's end, the host's sweep of its uid and the removal of its
      // folders go on off the path of the runner's next sample; the uid stays leased until they are done, and
      // the sandbox's close waits for them.
      this.#context.shared().retire(
        harness
          .stop()
          .catch(() => undefined)
          .then(() => place.pair.close()),
      );
      return;
    }
    await harness.stop();
    await rm(place.root, { recursive: true, force: true });
  }

  #harnessOptions(): Omit<HarnessStartOptions, "harnessFile" | "entryFile" | "workDir" | "readOnlyPaths"> {
    const { program, cases, limits, signal } = this.#options;
    return {
      sandbox: this.#context.sandbox,
      python: this.#settings.python,
      functionName: program.kind === "function" ? program.functionName : "",
      spares: this.#spares,
      ...(cases !== undefined ? { cases } : {}),
      limits,
      loadTimeoutMs: this.#settings.loadTimeoutMs,
      stuckGraceMs: this.#settings.stuckGraceMs,
      ...(signal ? { signal } : {}),
    };
  }

  /** A host of this sample's own: a temp folder with the harness, the snapshot read-only beside it. */
  async #startOwn(): Promise<Hosting> {
    const root = await mkdtemp(join(tmpdir(), "skillrig-sample-"));
    try {
      // The sandbox runs the harness as an unprivileged user, which must be able to read it.
      await chmod(root, 0o755);
      const harnessFile = join(root, "harness", "sample_harness.py");
      await mkdir(dirname(harnessFile), { recursive: true });
      await copyFile(HARNESS_FILE, harnessFile);
      const workDir = join(root, "work");
      await mkdir(workDir, { recursive: true });
      const start = () =>
        SampleHarness.start({
          ...this.#harnessOptions(),
          harnessFile,
          entryFile: this.#options.program.entryFile,
          workDir,
          readOnlyPaths: [root, this.#options.snapshotDir],
        });
      const { harness, load } = await start();
      return { place: { where: "own", root }, harness, load, start };
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** The shared host's process for this sample, or undefined when it cannot serve it. */
  async #startShared(): Promise<Hosting | undefined> {
    const { program, signal } = this.#options;
    if (!this.#context.uids || this.#options.shareHost === false) return undefined;
    const slot = this.#context.shared();
    if (slot.broken || !slot.fits(this.#options.limits)) return undefined;
    let pair: SharedPair | undefined;
    try {
      pair = await slot.openPair({
        deliverable: { dir: this.#options.snapshotDir, entryFile: program.entryFile },
        functionName: program.kind === "function" ? program.functionName : "",
        spares: this.#spares,
        limits: this.#options.limits,
      });
    } catch (error) {
      // A host that cannot start here (an old setpriv without ambient capabilities, say) is not the sample's fault:
      // this sandbox stops trying, and every sample gets a host of its own (the stricter path).
      if (isSkillrigError(error)) throw error;
      slot.markBroken();
      return undefined;
    }
    if (!pair) return undefined;
    const open = pair;
    // Canceled (Ctrl-C, a canceled job): the pair's whole tree goes. One listener per sample, on the current process.
    let current: ReturnType<SharedPair["process"]> | undefined;
    const onAbort = () => current?.kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    const detach = () => signal?.removeEventListener("abort", onAbort);
    const start = () => {
      const process = open.process();
      current = process;
      if (signal?.aborted) process.kill();
      return SampleHarness.start({
        ...this.#harnessOptions(),
        process,
        harnessFile: "sample_harness.py",
        entryFile: open.entryFile,
        // Where its cases' folders are (a main case's reply names one, checked against this).
        workDir: open.casesDir,
        readOnlyPaths: [],
      });
    };
    try {
      const { harness, load } = await start();
      if (harness.runtimeLost) {
        detach();
        await open.close();
        return undefined;
      }
      return { place: { where: "shared", pair: open, detach }, harness, load, start };
    } catch (error) {
      detach();
      await open.close();
      throw error;
    }
  }

  /** The shared host was lost: the rest of the sample, and its cases in flight, go to a host of its own (once). */
  async #leaveShared(): Promise<void> {
    if (this.#hosting.place.where === "own") return;
    this.#leavingShared ??= (async () => {
      const own = await this.#startOwn();
      const left = this.#hosting;
      this.#hosting = own;
      await left.harness.stop(0);
      if (left.place.where === "shared") {
        left.place.detach();
        await left.place.pair.close();
      }
    })();
    await this.#leavingShared;
  }

  /** A fresh harness after a crash, once for all the cases that noticed; false when out of restarts. */
  async #restart(): Promise<boolean> {
    if (!this.#restarting) {
      if (this.#restarts >= this.#settings.maxRestarts) return false;
      this.#restarts++;
      this.#restarting = (async () => {
        await this.#hosting.harness.stop(0);
        const { harness, load } = await this.#hosting.start();
        this.#hosting.harness = harness;
        this.#hosting.load = load;
      })().finally(() => {
        this.#restarting = undefined;
      });
    }
    await this.#restarting;
    return this.#hosting.harness.alive || !this.#hosting.load.ok;
  }

  /** A live harness for the next case, or the reply that says why there is none. */
  async #revive(): Promise<SampleCaseReply | undefined> {
    if (this.#leavingShared) await this.#leavingShared;
    const hosting = () => this.#hosting;
    if (!hosting().harness.alive && hosting().harness.runtimeLost) await this.#leaveShared();
    if (hosting().harness.alive) return undefined;
    let restarted = await this.#restart();
    // The restart found the shared host gone (the sample's process never got going): it moves to a host of its own.
    if (hosting().harness.runtimeLost) {
      await this.#leaveShared();
      restarted = hosting().harness.alive || !hosting().load.ok;
    }
    if (!restarted) return lost(`the sample harness died ${this.#restarts + 1} time(s) in this task run; the remaining cases were not run`);
    const reloaded = hosting().load;
    if (!reloaded.ok) return lost(`the sample did not load after its harness was started again: ${reloaded.error.message}`);
    return undefined;
  }

  /**
   * A case whose harness died under it (another case killed the fork server or the harness while this one waited or
   * ran beside it) runs again on a fresh harness, one such re-run at a time, so its verdict is its own (issue 38). A
   * case lost again on its re-run keeps that loss as its verdict (nearly always the one that kills its harness; with
   * several lanes a new killer could run beside the re-run: that is said in docs/sandbox.md).
   */
  #runAgain(testCase: SampleCase): Promise<SampleCaseReply> {
    const again = (this.#rerunning ?? Promise.resolve()).catch(() => undefined).then(() => this.#run(testCase, true));
    this.#rerunning = again;
    return again;
  }

  async #run(testCase: SampleCase, rerun: boolean): Promise<SampleCaseReply> {
    // Canceled (Ctrl-C, a canceled job): a case the batch still held is not started, and no harness is started again.
    if (this.#options.signal?.aborted) return lost("the task run was canceled before this case ran");
    const loaded = this.#hosting.load;
    if (!loaded.ok) return lost(`the sample did not load: ${loaded.error.message}`);
    const unrevived = await this.#revive();
    if (unrevived) return unrevived;
    const program = this.#options.program;
    const request = requestOf(testCase.limits);
    if (program.kind === "main") {
      // A main case: its argv, stdin and files; the harness writes the files into the case's fresh folder.
      Object.assign(request, { argv: testCase.argv ?? [], stdin: testCase.stdin ?? "", files: testCase.files ?? {} });
    }
    try {
      const reply = await this.#hosting.harness.run(request, program.kind === "main" ? undefined : (testCase.argsJson ?? "[]"));
      const { fork_server_lost: forkServerLost, ...own } = reply as CaseReply & { fork_server_lost?: string };
      // Its fork server died under it (this case or another killed it): again on a fresh one; a case that loses it
      // again on its re-run keeps this reply as its verdict.
      if (forkServerLost !== undefined && !rerun) return this.#runAgain(testCase);
      return replyOf(own as CaseReply);
    } catch (error) {
      return this.#afterHarnessError(error, testCase, rerun);
    }
  }

  /** The harness failed while the case was in it: the case's reply, or the case again where that is fair. */
  async #afterHarnessError(error: unknown, testCase: SampleCase, rerun: boolean): Promise<SampleCaseReply> {
    const program = this.#options.program;
    if (this.#options.signal?.aborted) return lost("the task run was canceled while this case waited or ran");
    if (error instanceof CaseOverranError) {
      return {
        ...lost(
          `the ${program.kind === "function" ? "call" : "program"} did not end within ${error.wallMs} ms (the wall-clock backstop of its ${testCase.limits.cpuTreeMs ?? testCase.limits.cpuMs ?? error.wallMs} ms time limit) and the harness did not stop it; the runner stopped the harness`,
        ),
        stuck: true,
      };
    }
    if (error instanceof HarnessDiedError && error.details.runtime_lost === true) {
      // Not this sample's doing (or not provably so): the case runs again where no other sample can reach it.
      await this.#leaveShared();
      return this.#run(testCase, rerun);
    }
    // Run again only when a restart is left: without one, the case could not run anyway, and its loss says why.
    if (error instanceof HarnessDiedError && !rerun && this.#restarts < this.#settings.maxRestarts) return this.#runAgain(testCase);
    if (error instanceof HarnessDiedError) return { ...lost(`${error.message} (while this case ran)`), details: error.details };
    throw error;
  }
}

/** What the harness is told of a case's limits. */
function requestOf(limits: ResourceLimits): Omit<CaseRequest, "id"> {
  return {
    wall_ms: limits.wallMs,
    cpu_ms: limits.cpuMs ?? limits.wallMs,
    time_ms: limits.cpuTreeMs ?? limits.cpuMs ?? limits.wallMs,
    disk_bytes: limits.diskBytes ?? 0,
    disk_entries: DISK_ENTRY_LIMIT,
    memory_bytes: limits.memoryBytes ?? 0,
    output_bytes: limits.outputBytes ?? 1024 * 1024,
    // The return value's JSON text gets the same cap as each output stream.
    value_bytes: limits.outputBytes ?? 1024 * 1024,
  };
}

function replyOf(reply: CaseReply): SampleCaseReply {
  const { id: _id, ...rest } = reply;
  return rest as SampleCaseReply;
}

function lost(message: string): SampleCaseReply & { end: "lost" } {
  return { end: "lost", message, ms: 0, valueJson: "", stdout: "", stderr: "" };
}

function loadOf(load: HarnessLoad): SampleLoad {
  if (load.ok) {
    const { ready } = load;
    return {
      ok: true,
      signature: ready.signature,
      signatureError: ready.signature_error,
      stdout: ready.import_stdout,
      stderr: ready.import_stderr,
    };
  }
  const { op: _op, ...error } = load.error;
  return { ok: false, ...error };
}
