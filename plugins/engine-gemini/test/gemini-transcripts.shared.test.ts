/**
 * Shared-fixtures tier: runs only when ../shared/fixtures (beside the repository) exists; vitest.config.ts leaves
 * `*.shared.test.ts` out and prints that it did otherwise. The default tier reads the copies in
 * test/fixtures/engine-captures; this tier checks those copies against their source and replays captures that
 * are not copied.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { replayCapture } from "@skillrig/engine-kit";
import { classifyGeminiRun, createGeminiStreamParser } from "@skillrig/engine-gemini";

const SHARED = resolve(import.meta.dirname, "../../../../shared/fixtures/engine-captures");
const COPIES = resolve(import.meta.dirname, "fixtures/engine-captures");

function replay(name: string, exitCode: number) {
  const read = (ext: string) => {
    try {
      return readFileSync(resolve(SHARED, `${name}.${ext}`), "utf8");
    } catch {
      return "";
    }
  };
  const parser = createGeminiStreamParser(`/run/${name}/cwd`);
  const { events, run } = replayCapture(parser, { stdout: read("stdout"), stderr: read("stderr"), exitCode, command: "gemini" });
  return { parser, events, failure: classifyGeminiRun(run, parser) };
}

describe("gemini transcripts from ../shared/fixtures", () => {
  it("the repository's copies are byte-identical to their source", () => {
    const copies = readdirSync(COPIES);
    expect(copies.length).toBeGreaterThan(0);
    for (const name of copies) expect(readFileSync(resolve(COPIES, name)), name).toEqual(readFileSync(resolve(SHARED, name)));
  });

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
