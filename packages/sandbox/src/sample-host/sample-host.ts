/**
 * The sample host for any sandbox: `Sandbox.openSample` built from the sandbox's own contract, so a team's own
 * sandbox reuses it as ours does. What it needs of the sandbox is only what the contract says: `spawn` (a host of a
 * sample's own) and, where the sandbox can keep samples apart by uid, `sampleUids` (one shared host for every
 * sample, each under a uid leased for it alone; see docs/sandbox.md, "The sample host").
 *
 *   const host = createSampleHost(mySandbox, { fileSizeBytes, diskBytes });
 *   mySandbox.openSample = host.openSample;   // and call host.close() from the sandbox's close()
 */
import type { Sandbox, SampleOpenOptions } from "@skillrig/core";
import { HARNESS_FILE, HOST_FILE, type HostedSample, openSample } from "./open-sample.js";
import { SharedHostSlot } from "./shared-host-slot.js";

export interface SampleHostOptions {
  /** The largest file a sample may write (the shared host's own cap; a sample asking more gets a host of its own). */
  fileSizeBytes: number;
  /** A case's disk cap (`sandbox.limits.disk_bytes`): the shared host's working folder holds 16 of them. */
  diskBytes: number;
}

export interface SampleHost {
  openSample(options: SampleOpenOptions): Promise<HostedSample>;
  /** Stops the shared host, when one was started; waits for the samples' teardown. */
  close(): Promise<void>;
}

export function createSampleHost(sandbox: Sandbox, options: SampleHostOptions): SampleHost {
  let shared: SharedHostSlot | undefined;
  return {
    openSample: (sampleOptions) =>
      openSample(
        {
          sandbox,
          uids: sandbox.sampleUids,
          shared: () =>
            (shared ??= new SharedHostSlot({
              support: sandbox.sampleUids!,
              python: sampleOptions.python ?? "python3",
              harnessFile: HARNESS_FILE,
              runtimeFile: HOST_FILE,
              fileSizeBytes: options.fileSizeBytes,
              diskBytes: options.diskBytes,
            })),
        },
        sampleOptions,
      ),
    async close() {
      const slot = shared;
      shared = undefined;
      await slot?.close();
    },
  };
}
