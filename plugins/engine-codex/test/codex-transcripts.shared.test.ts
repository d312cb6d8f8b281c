/**
 * Shared-fixtures tier: runs only when ../shared/fixtures (beside the repository) exists; vitest.config.ts leaves
 * `*.shared.test.ts` out and prints that it did otherwise. The default tier reads the copies in
 * test/fixtures/transcripts; this tier checks those copies against their source and replays captures that
 * are not copied.
 */
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { describeSharedTranscripts } from "@skillrig/engine-kit/testing";
import { codex } from "./settings.js";

describeSharedTranscripts(codex, resolve(import.meta.dirname, "../../../../shared/fixtures/engine-captures"), (replay) => {
  it("codex_ro: in the read-only sandbox the write is blocked: the agent's reply, no file change, a completed turn", () => {
    const { parser, events, failure } = replay("codex_ro", 0);
    expect(failure).toBeUndefined();
    expect(parser.finalMessage()).toBe("Could not write");
    expect(events.filter((e) => e.type === "file_change")).toEqual([]);
  });
});
