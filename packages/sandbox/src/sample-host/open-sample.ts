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
import type { SampleUidSupport } from "./shared-host.js";
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

interface SampleState {
  place: Place;
  harness: SampleHarness;
  load: HarnessLoad;
  restarts: number;
  restarting?: Promise<void>;
  leavingShared?: Promise<void>;
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
  const settings = {
    python: options.python ?? "python3",
    loadTimeoutMs: options.loadTimeoutMs ?? 30_000,
    stuckGraceMs: options.stuckGraceMs ?? 5000,
    maxRestarts: options.maxRestarts ?? 3,
  };
  const spares = Math.min(Math.max(1, Math.floor(options.concurrency)), 8);
  const program = options.program;
  const harnessOptions = (): Omit<HarnessStartOptions, "harnessFile" | "entryFile" | "workDir" | "readOnlyPaths"> => ({
    sandbox: context.sandbox,
    python: settings.python,
    functionName: program.kind === "function" ? program.functionName : "",
    spares,
    ...(options.cases !== undefined ? { cases: options.cases } : {}),
    limits: options.limits,
    loadTimeoutMs: settings.loadTimeoutMs,
    stuckGraceMs: settings.stuckGraceMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });

  /** A host of this sample's own: a temp folder with the harness, the snapshot read-only beside it. */
  const startOwn = async (): Promise<SampleState> => {
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
          ...harnessOptions(),
          harnessFile,
          entryFile: program.entryFile,
          workDir,
          readOnlyPaths: [root, options.snapshotDir],
        });
      const { harness, load } = await start();
      return { place: { where: "own", root }, harness, load, restarts: 0, start };
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  };

  /** The shared host's process for this sample, or undefined when it cannot serve it. */
  const startShared = async (): Promise<SampleState | undefined> => {
    if (!context.uids || options.shareHost === false) return undefined;
    const slot = context.shared();
    if (slot.broken || !slot.fits(options.limits)) return undefined;
    let pair: SharedPair | undefined;
    try {
      pair = await slot.openPair({
        deliverable: { dir: options.snapshotDir, entryFile: program.entryFile },
        functionName: program.kind === "function" ? program.functionName : "",
        spares,
        limits: options.limits,
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
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const detach = () => options.signal?.removeEventListener("abort", onAbort);
    const start = () => {
      const process = open.process();
      current = process;
      if (options.signal?.aborted) process.kill();
      return SampleHarness.start({
        ...harnessOptions(),
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
      return { place: { where: "shared", pair: open, detach }, harness, load, restarts: 0, start };
    } catch (error) {
      detach();
      await open.close();
      throw error;
    }
  };

  const state: SampleState = (await startShared()) ?? (await startOwn());

  /** The shared host was lost: the rest of the sample, and its cases in flight, go to a host of its own (once). */
  const leaveShared = async (): Promise<void> => {
    if (state.place.where === "own") return;
    state.leavingShared ??= (async () => {
      const own = await startOwn();
      const old = state.harness;
      const left = state.place;
      state.place = own.place;
      state.harness = own.harness;
      state.load = own.load;
      state.start = own.start;
      await old.stop(0);
      if (left.where === "shared") {
        left.detach();
        await left.pair.close();
      }
    })();
    await state.leavingShared;
  };

  /** A fresh harness after a crash, once for all the cases that noticed; false when out of restarts. */
  const restart = async (): Promise<boolean> => {
    if (!state.restarting) {
      if (state.restarts >= settings.maxRestarts) return false;
      state.restarts++;
      state.restarting = (async () => {
        await state.harness.stop(0);
        const { harness, load } = await state.start();
        state.harness = harness;
        state.load = load;
      })().finally(() => {
        state.restarting = undefined;
      });
    }
    await state.restarting;
    return state.harness.alive || !state.load.ok;
  };

  const run = async (testCase: SampleCase): Promise<SampleCaseReply> => {
    if (!state.load.ok) return lost(`the sample did not load: ${state.load.error.message}`);
    if (state.leavingShared) await state.leavingShared;
    if (!state.harness.alive && state.harness.runtimeLost) await leaveShared();
    if (!state.harness.alive) {
      let restarted = await restart();
      // The restart found the shared host gone (the sample's process never got going): it moves to a host of its own.
      if (state.harness.runtimeLost) {
        await leaveShared();
        restarted = state.harness.alive || !state.load.ok;
      }
      if (!restarted)
        return lost(`the sample harness died ${state.restarts + 1} time(s) in this task run; the remaining cases were not run`);
      const reloaded = state.load as HarnessLoad; // replaced by the restart
      if (!reloaded.ok) return lost(`the sample did not load after its harness was started again: ${reloaded.error.message}`);
    }
    const request = requestOf(testCase.limits);
    if (program.kind === "main") {
      // A main case: its argv, stdin and files; the harness writes the files into the case's fresh folder.
      Object.assign(request, { argv: testCase.argv ?? [], stdin: testCase.stdin ?? "", files: testCase.files ?? {} });
    }
    try {
      return replyOf(await state.harness.run(request, program.kind === "main" ? undefined : (testCase.argsJson ?? "[]")));
    } catch (error) {
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
        await leaveShared();
        return run(testCase);
      }
      if (error instanceof HarnessDiedError) return { ...lost(`${error.message} (while this case ran)`), details: error.details };
      throw error;
    }
  };

  return {
    get load(): SampleLoad {
      return loadOf(state.load);
    },
    get isolation() {
      return state.harness.isolation;
    },
    get restarts() {
      return state.restarts;
    },
    async killHarness() {
      state.harness.kill();
      await state.harness.exited.catch(() => undefined);
    },
    run,
    async close() {
      await state.leavingShared?.catch(() => undefined);
      await state.restarting?.catch(() => undefined);
      const place = state.place;
      if (place.where === "shared") {
        place.detach();
        // Every answer of the sample is in: its harness's end, the host's sweep of its uid and the removal of its
        // folders go on off the path of the runner's next sample; the uid stays leased until they are done, and
        // the sandbox's close waits for them.
        const harness = state.harness;
        context.shared().retire(
          harness
            .stop()
            .catch(() => undefined)
            .then(() => place.pair.close()),
        );
        return;
      }
      await state.harness.stop();
      await rm(place.root, { recursive: true, force: true });
    },
  };
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
