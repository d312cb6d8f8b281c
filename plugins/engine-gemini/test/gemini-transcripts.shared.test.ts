/**
 * Shared-fixtures tier: runs only when ../shared/fixtures (beside the repository) exists; vitest.config.ts leaves
 * `*.shared.test.ts` out and prints that it did otherwise. The default tier reads the copies in
 * test/fixtures/transcripts; this tier checks those copies against their source and replays captures that
 * are not copied.
 */
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { describeSharedTranscripts } from "@skillrig/engine-kit/testing";
import { gemini } from "./settings.js";

describeSharedTranscripts(gemini, resolve(import.meta.dirname, "../../../../shared/fixtures/engine-captures"), (replay) => {
  it("gem_positional: a prompt given as a positional argument streams the same way and succeeds", () => {
    const { parser, failure } = replay("gem_positional", 0);
    expect(failure).toBeUndefined();
    expect(parser.finalMessage()).toBeTruthy();
  });

  it("gem_tool_yolo: in yolo mode the write_file call is a file change", () => {
    const { events, failure } = replay("gem_tool_yolo", 0);
    expect(failure).toBeUndefined();
    expect(events).toContainEqual({ type: "file_change", path: "/run/gem_tool_yolo/cwd/out.txt", kind: "add" });
  });

  it("gem_nocreds and gem_nocreds_text: exit 41 is an auth failure whatever the output format", () => {
    for (const name of ["gem_nocreds", "gem_nocreds_text"]) expect(replay(name, 41).failure?.kind, name).toBe("auth");
  });
});
