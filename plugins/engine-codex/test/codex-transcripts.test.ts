/** Tier 1: the codex stream parser and failure classification against real codex-cli 0.169.0 transcripts. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonOutput, replayCapture } from "@skillrig/engine-kit";
import { feedUntilGiveUp, transcriptReplayer, transcriptsDir } from "@skillrig/engine-kit/testing";
import { classifyCodexRun, createCodexStreamParser } from "@skillrig/engine-codex";
import { codex } from "./settings.js";

const replay = transcriptReplayer(codex);

describe("codex exec --json transcripts", () => {
  it("codex without its key variable (codex 0.169.0's own words) is an auth failure, not a crash", () => {
    const parser = createCodexStreamParser();
    const { run } = replayCapture(parser, {
      stdout: [
        '{"type":"thread.started","thread_id":"01a208fa-5b8a-75e2-a67b-d99ff9e9afa1"}',
        '{"type":"turn.started"}',
        '{"type":"error","message":"Missing environment variable: `CODEX_API_KEY`."}',
        '{"type":"turn.failed","error":{"message":"Missing environment variable: `CODEX_API_KEY`."}}',
      ].join("\n"),
      stderr: "Reading additional input from stdin...\n",
      exitCode: 1,
      command: "codex",
    });
    const failure = classifyCodexRun(run, parser);
    expect(failure?.kind).toBe("auth");
    expect(failure?.message).toContain("Missing environment variable: `CODEX_API_KEY`");
  });

  it("codex_tool_ww: a shell command is a tool call and its result", () => {
    const { events, failure } = replay("codex_tool_ww", 0);
    expect(failure).toBeUndefined();
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_call", tool: "shell", args: { command: "/bin/bash -lc 'printf hello > out.txt'" } }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "shell", status: "completed" }));
    // The model-metadata notice is a warning, not a failure.
    expect(events).toContainEqual(
      expect.objectContaining({ type: "status", status: "warning", message: expect.stringContaining("Model metadata") }),
    );
  });

  it("codex_patch: apply_patch is a file change", () => {
    const { events, parser } = replay("codex_patch", 0);
    expect(events).toContainEqual({ type: "file_change", path: "/run/codex_patch/cwd/hello.txt", kind: "add" });
    expect(parser.finalMessage()).toBe("Created hello.txt");
  });

  it("codex_schema: the final message is the structured JSON", () => {
    const { parser } = replay("codex_schema", 0);
    const parsed = parseJsonOutput(parser.finalMessage() ?? "");
    expect(parsed).toMatchObject({ ok: true, value: { ok: true }, repairs: [] });
  });

  it("codex_401_noretry: turn.failed with 401 is an auth failure carrying the API's message", () => {
    const { failure } = replay("codex_401_noretry", 1);
    expect(failure?.kind).toBe("auth");
    expect(failure?.message).toContain("401 Unauthorized: Incorrect API key provided: sk-bogus.");
  });

  it("codex_401: after the websocket and HTTPS retries it is still an auth failure", () => {
    const { failure, parser } = replay("codex_401", 1);
    expect(failure?.kind).toBe("auth");
    expect(parser.errors().length).toBeGreaterThan(5);
  });

  it("codex_nocreds_nogit: a startup refusal on stderr is a crash with codex's words", () => {
    const { failure } = replay("codex_nocreds_nogit", 1);
    expect(failure).toEqual({
      kind: "crash",
      message: "Codex CLI failed with exit code 1: Not inside a trusted directory and --skip-git-repo-check was not specified.",
    });
  });

  it("codex_long_nonetwork: without network it never completes; the parser gives up after three waits for network", () => {
    const parser = createCodexStreamParser();
    const { lines, at: givenUpAt } = feedUntilGiveUp(parser, join(transcriptsDir(codex), "codex_long_nonetwork.stdout"));
    // The five websocket reconnects and the HTTPS fallback are not enough to give up; the third network wait is.
    expect(lines[givenUpAt]).toContain("waiting for network");
    expect(lines.slice(0, givenUpAt + 1).filter((l) => l.includes("waiting for network"))).toHaveLength(3);
    expect(parser.completed()).toBe(false);
    expect(parser.giveUp?.()).toMatch(/cannot reach the model API .*Reconnecting\.\.\. waiting for network .* 3 times/);
  });
});
