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
import { classifyCodexRun, createCodexStreamParser } from "@skillrig/engine-codex";

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
  const parser = createCodexStreamParser();
  const { events, run } = replayCapture(parser, { stdout: read("stdout"), stderr: read("stderr"), exitCode, command: "codex" });
  return { parser, events, failure: classifyCodexRun(run, parser) };
}

describe("codex transcripts from ../shared/fixtures", () => {
  it("the repository's copies are byte-identical to their source", () => {
    const copies = readdirSync(COPIES);
    expect(copies.length).toBeGreaterThan(0);
    for (const name of copies) expect(readFileSync(resolve(COPIES, name)), name).toEqual(readFileSync(resolve(SHARED, name)));
  });

  it("codex_ro: in the read-only sandbox the write is blocked: the agent's reply, no file change, a completed turn", () => {
    const { parser, events, failure } = replay("codex_ro", 0);
    expect(failure).toBeUndefined();
    expect(parser.finalMessage()).toBe("Could not write");
    expect(events.filter((e) => e.type === "file_change")).toEqual([]);
  });
});
