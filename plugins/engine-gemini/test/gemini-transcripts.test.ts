/** Tier 1: the gemini stream parser and failure classification against real gemini-cli 0.61.0 transcripts. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { feedUntilGiveUp, transcriptReplayer, transcriptsDir } from "@skillrig/engine-kit/testing";
import { createGeminiStreamParser, httpStatusOfExit } from "@skillrig/engine-gemini";
import { gemini } from "./settings.js";

const replay = transcriptReplayer(gemini);

describe("gemini stream-json transcripts", () => {
  it("gem_tool_autoedit: a write_file call becomes tool_call, tool_result and a file change in the workspace", () => {
    const { events, failure } = replay("gem_tool_autoedit", 0);
    expect(failure).toBeUndefined();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool_call",
        tool: "write_file",
        args: { file_path: "out.txt", content: "hello from fake gemini\n" },
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "write_file", status: "success" }));
    expect(events).toContainEqual({ type: "file_change", path: "/run/gem_tool_autoedit/cwd/out.txt", kind: "add" });
  });

  it("gem_tool_default: the denied write is a failed tool result and no file change", () => {
    const { events } = replay("gem_tool_default", 0);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_result", status: "error", output: expect.stringContaining('Tool "write_file" not found') }),
    );
    expect(events.filter((e) => e.type === "file_change")).toEqual([]);
  });

  it("gem_badkey_stream: exit 144 is HTTP 400 truncated to 8 bits; a bad key is an auth failure with the API's message", () => {
    const { failure } = replay("gem_badkey_stream", 144);
    expect(failure?.kind).toBe("auth");
    expect(failure?.message).toContain("API key not valid. Please pass a valid API key.");
    expect(failure?.message).toContain("exit code 144 (HTTP 400 truncated to 8 bits)");
  });

  it("gem_badkey_json: the error JSON gemini writes to stderr is read", () => {
    const { parser, failure } = replay("gem_badkey_json", 144);
    expect(parser.errors().at(-1)).toContain("API key not valid");
    expect(failure?.kind).toBe("auth");
  });

  it("gem_nocreds_stream: exit 41 (no auth method) is an auth failure naming the variables to set", () => {
    const { failure } = replay("gem_nocreds_stream", 41);
    expect(failure?.kind).toBe("auth");
    expect(failure?.message).toContain("Please set an Auth method");
    expect(failure?.message).toContain("exit code 41 (no usable authentication)");
  });

  it("gem_bogus_json: exit 55 (untrusted folder) is a crash that says so", () => {
    const { failure } = replay("gem_bogus_json", 55);
    expect(failure?.kind).toBe("crash");
    expect(failure?.message).toContain("not running in a trusted directory");
    expect(failure?.message).toContain("the workspace folder is not trusted");
  });

  it("gem_long_nonetwork: the parser gives up on the fourth failed fetch instead of minutes of backoff", () => {
    const parser = createGeminiStreamParser("/run/x/cwd");
    const { lines, at } = feedUntilGiveUp(parser, join(transcriptsDir(gemini), "gem_long_nonetwork.stderr"));
    expect(lines[at]).toMatch(/^Attempt \d+ failed\. Retrying with backoff.*fetch failed/);
    expect(lines.slice(0, at + 1).filter((l) => l.startsWith("Attempt "))).toHaveLength(4);
    expect(parser.giveUp?.()).toMatch(/cannot reach the model API \(4 requests failed with "fetch failed"/);
  });

  it("maps exit codes back to HTTP statuses only where one fits", () => {
    expect(httpStatusOfExit(144)).toBe(400);
    expect(httpStatusOfExit(145)).toBe(401);
    expect(httpStatusOfExit(244)).toBe(500);
    expect(httpStatusOfExit(41)).toBeUndefined();
    expect(httpStatusOfExit(1)).toBeUndefined();
  });
});
