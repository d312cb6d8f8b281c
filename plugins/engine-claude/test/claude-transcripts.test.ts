/**
 * Tier 1: the claude stream parser and failure classification on transcripts recorded from the real Claude Code
 * 2.1.330 against @skillrig/mock-model (scripts/record-transcripts.mjs wrote test/fixtures/transcripts/).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { feedUntilGiveUp, transcriptReplayer, transcriptsDir } from "@skillrig/engine-kit/testing";
import { claudeAdapter, CONNECTION_FAILURE_LIMIT, createClaudeStreamParser, toClaudeSchema } from "@skillrig/engine-claude";
import { claude } from "./settings.js";

const replay = transcriptReplayer(claude);

describe("claude stream-json transcripts", () => {
  it("ok_write_structured: Write becomes a tool call, a result and a file change; the answer is the validated StructuredOutput", () => {
    const { parser, events, failure } = replay("ok_write_structured");
    expect(failure).toBeUndefined();
    expect(parser.model()).toBe("claude-opus-5-5");
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_call", tool: "Write", args: { file_path: "greeting.txt", content: "Hello, Ada!\n" } }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "Write", status: "success" }));
    expect(events).toContainEqual({ type: "file_change", path: "/run/ok_write_structured/workspace/greeting.txt", kind: "add" });
    // The first answer broke the schema: Claude Code's own validation sent it back, and the second one stands.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool_result",
        tool: "StructuredOutput",
        status: "error",
        output: expect.stringContaining("/message"),
      }),
    );
    expect(parser.result()?.structuredOutput).toEqual({ greeting_file: "greeting.txt", message: "Hello, Ada!" });
    expect(claudeAdapter.finalAnswer?.(parser, {} as never)).toBe('{"greeting_file":"greeting.txt","message":"Hello, Ada!"}');
    // input_tokens + cache tokens; three requests of 100 in, 10 out each.
    expect(parser.usage()).toEqual({ inputTokens: 300, outputTokens: 30, totalTokens: 330 });
  });

  it("ok_shell_text: a Bash call allowed by --allowedTools, and its printout as the final message", () => {
    const { parser, events, failure } = replay("ok_shell_text");
    expect(failure).toBeUndefined();
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_call", tool: "Bash", args: expect.objectContaining({ command: "python3 -c 'print(6*7)'" }) }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "Bash", status: "success", output: "42" }));
    expect(parser.finalMessage()).toBe("42");
    expect(events.filter((e) => e.type === "file_change")).toEqual([]);
  });

  it("permission_denied: a command acceptEdits does not allow is a failed tool result and a warning naming the tool", () => {
    const { parser, events, failure } = replay("permission_denied");
    expect(failure).toBeUndefined();
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_result", tool: "Bash", status: "error", output: "This command requires approval" }),
    );
    expect(events).toContainEqual({
      type: "status",
      status: "warning",
      message: "permission denied for Bash: This command requires approval",
    });
    expect(parser.permissionDenials()).toEqual(["Bash"]);
  });

  it("auth_401: a rejected key (exit 1, api_error_status 401) is an auth failure with Claude Code's message", () => {
    const { failure } = replay("auth_401");
    expect(failure?.kind).toBe("auth");
    expect(failure?.message).toBe("Claude Code could not authenticate: Invalid API key · Fix external API key [exit code 1, HTTP 401]");
  });

  it("auth_401_retrying: the parser gives up as auth on the first 401 retry instead of ten retries with backoff", () => {
    const parser = createClaudeStreamParser("/run/x/workspace");
    const { lines, at } = feedUntilGiveUp(parser, join(transcriptsDir(claude), "auth_401_retrying.stdout"));
    expect(JSON.parse(lines[at]!)).toMatchObject({ type: "system", subtype: "api_retry", attempt: 1, error_status: 401 });
    expect(parser.giveUp?.()).toEqual({ kind: "auth", message: "the model API rejected the key (HTTP 401 authentication_failed)" });
  });

  it("server_500: a server error it gave up on is a crash naming the status and the API's message", () => {
    const { failure } = replay("server_500");
    expect(failure?.kind).toBe("crash");
    expect(failure?.message).toMatch(/^Claude Code failed with exit code 1, HTTP 500: API Error: 500 the mock is overloaded/);
  });

  it(`no_network: the parser stops Claude Code at its ${CONNECTION_FAILURE_LIMIT}th failed connection`, () => {
    const parser = createClaudeStreamParser("/run/x/workspace");
    const { lines, at } = feedUntilGiveUp(parser, join(transcriptsDir(claude), "no_network.stdout"));
    expect(JSON.parse(lines[at]!)).toMatchObject({ subtype: "api_retry", attempt: CONNECTION_FAILURE_LIMIT, error_status: null });
    expect(parser.giveUp?.()).toMatch(/cannot reach the model API \(4 requests failed without a connection/);
    // Run to the end (as with retries: 4) it is a crash quoting the CLI's own explanation.
    expect(replay("no_network").failure?.message).toContain("Connection refused");
  });

  it("root_bypass: bypassPermissions as root is refused on stderr; the message says what to do instead", () => {
    const { failure } = replay("root_bypass");
    expect(failure?.kind).toBe("crash");
    expect(failure?.message).toContain("cannot be used with root/sudo privileges");
    expect(failure?.message).toContain('"allowed_tools"');
    expect(failure?.message).toContain("IS_SANDBOX");
  });

  it("invalid_schema: Claude Code refuses an x- keyword in --json-schema, which is why the adapter drops them", () => {
    const { failure } = replay("invalid_schema");
    expect(failure).toEqual({
      kind: "crash",
      message:
        'Claude Code failed with exit code 1: Error: --json-schema is not a valid JSON Schema: strict mode: unknown keyword: "x-type"',
    });
  });
});

describe("the output schema for --json-schema", () => {
  it("drops skillrig's x- keywords in every schema position but keeps property names and values", () => {
    const schema = {
      type: "object",
      "x-note": "top",
      properties: {
        report: { type: "string", "x-type": "artifact", "x-role": "report" },
        "x-id": { type: "string", description: "a property whose name starts with x-" },
        rows: { type: "array", items: { type: "object", "x-input-source": "inline", properties: { n: { type: "integer" } } } },
      },
      anyOf: [{ required: ["report"], "x-why": "one" }],
      default: { "x-kept": true },
    };
    const { schema: out, changes } = toClaudeSchema(schema);
    expect(out).toEqual({
      type: "object",
      properties: {
        report: { type: "string" },
        "x-id": { type: "string", description: "a property whose name starts with x-" },
        rows: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } },
      },
      anyOf: [{ required: ["report"] }],
      default: { "x-kept": true },
    });
    expect(changes).toEqual(["--json-schema: dropped skillrig's annotation keywords x-input-source, x-note, x-role, x-type, x-why"]);
    expect(schema.properties.report["x-type"]).toBe("artifact");
  });

  it("passes nothing for a boolean schema and says so", () => {
    expect(toClaudeSchema(true)).toEqual({ changes: ["--json-schema not used: the output schema is true"] });
  });
});
