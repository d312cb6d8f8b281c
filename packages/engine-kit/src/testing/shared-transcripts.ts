/**
 * The shared-fixtures tier of the transcript tests: the plugin's transcripts are copies of captures kept beside the
 * repository (`../shared/fixtures/engine-captures`); this tier checks the copies against their source and replays
 * captures that were not copied. Call it from a `*.shared.test.ts` file, which the vitest config runs only when that
 * folder exists.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StreamParser } from "../adapter.js";
import type { EngineTestSettings } from "./engine-settings.js";
import { type Replayed, transcriptFiles, transcriptReplayer, transcriptsDir } from "./transcripts.js";

/**
 * Registers "the repository's copies are byte-identical to their source" for the transcripts under `source`, and the
 * engine's own cases (`ownCases`), which get a replayer that reads from `source`.
 */
export function describeSharedTranscripts<P extends StreamParser>(
  settings: Pick<EngineTestSettings<never, P>, "engine" | "fixtures" | "transcripts">,
  source: string,
  ownCases: (replay: (name: string, exitCode?: number | null) => Replayed<P>) => void,
): void {
  describe(`${settings.engine} transcripts from ../shared/fixtures`, () => {
    it("the repository's copies are byte-identical to their source", () => {
      const copies = transcriptFiles(transcriptsDir(settings));
      expect(copies.length).toBeGreaterThan(0);
      for (const name of copies) expect(readFileSync(join(transcriptsDir(settings), name)), name).toEqual(readFileSync(join(source, name)));
    });
    ownCases(transcriptReplayer(settings, source));
  });
}
