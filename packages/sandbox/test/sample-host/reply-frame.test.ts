/** The runner's reading of the harness's reply headers: anything it does not know is the harness misbehaving. */
import { describe, expect, it } from "vitest";
import { readFirstLine, readFrameHeader } from "../../src/sample-host/reply-frame.js";

const frame = (fields: Record<string, unknown>) =>
  JSON.stringify({ id: 1, ms: 0.5, value_len: 0, stdout_len: 0, stderr_len: 0, ...fields });

describe("reply frame headers", () => {
  it("accepts what each way a call ends may carry", () => {
    expect(readFrameHeader(frame({ end: "returned", value_len: 3 })).end).toBe("returned");
    expect(readFrameHeader(frame({ end: "raised", exception_type: "ValueError", traceback: "..." })).end).toBe("raised");
    expect(readFrameHeader(frame({ end: "killed", reason: "wall" })).end).toBe("killed");
    expect(readFrameHeader(frame({ end: "exited", exit_code: null })).end).toBe("exited");
  });

  it("refuses a verdict, an unknown field, an unknown end, a wrong type, or a value for a call that did not return", () => {
    expect(() => readFrameHeader(frame({ end: "returned", status: "passed" }))).toThrow('unknown field "status" for case 1');
    expect(() => readFrameHeader(frame({ end: "passed" }))).toThrow('unknown "end": "passed"');
    expect(() => readFrameHeader(frame({ end: "toString" }))).toThrow('unknown "end"');
    expect(() => readFrameHeader(frame({ end: "killed", reason: "passed" }))).toThrow('invalid "reason" for case 1');
    expect(() => readFrameHeader(frame({ end: "raised" }))).toThrow('without "exception_type"');
    expect(() => readFrameHeader(frame({ end: "raised", exception_type: "E", value_len: 4 }))).toThrow('whose call ended "raised"');
    expect(() => readFrameHeader(frame({ end: "returned", value_len: -1 }))).toThrow('invalid "value_len"');
    expect(() => readFrameHeader(frame({ end: "returned", id: 0 }))).toThrow("without a valid id");
    expect(() => readFrameHeader('{"id": 1, "status": "ok"')).toThrow("not JSON");
    expect(() => readFrameHeader("[1]")).toThrow("not an object");
  });

  it("checks the first line's shape, so a lying signature cannot crash the runner", () => {
    const ready = { op: "ready", signature: null, signature_error: null, import_stdout: "", import_stderr: "", pid: 1 };
    expect(readFirstLine(JSON.stringify(ready)).op).toBe("ready");
    expect(() => readFirstLine(JSON.stringify({ ...ready, signature: { display: "f()", parameters: "all" } }))).toThrow(
      'neither a well-formed "ready" nor "load_error"',
    );
    expect(() => readFirstLine(JSON.stringify({ op: "passed" }))).toThrow('neither a well-formed "ready" nor "load_error"');
  });

  it("takes a main case's folder only as text, and a load error's exit status only as a status", () => {
    expect(readFrameHeader(frame({ end: "exited", exit_code: 0, folder: "/w/case-0123456789abcdef" })).folder).toBe(
      "/w/case-0123456789abcdef",
    );
    expect(() => readFrameHeader(frame({ end: "exited", exit_code: 0, folder: ["/etc"] }))).toThrow('invalid "folder" for case 1');
    const loadError = { op: "load_error", kind: "syntax_error", message: "SyntaxError in main.py line 1" };
    expect(readFirstLine(JSON.stringify({ ...loadError, exit_code: 1 })).op).toBe("load_error");
    expect(() => readFirstLine(JSON.stringify({ ...loadError, exit_code: -1 }))).toThrow('neither a well-formed "ready" nor "load_error"');
  });
});
