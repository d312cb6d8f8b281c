import { describe, expect, it } from "vitest";
import { describeProcessEnding, endingOfExit, type ProcessEnding } from "@skillrig/process";

describe("how a process ended, in words", () => {
  const cases: Array<[ProcessEnding, string]> = [
    [{ kind: "exited", code: 3 }, "exited with code 3"],
    [{ kind: "killed", signal: "SIGKILL" }, "was killed by signal SIGKILL"],
    [{ kind: "timeout", limitMs: 60_000 }, "timed out after 60 s"],
    [{ kind: "timeout", limitMs: 1500 }, "timed out after 1.5 s"],
    [{ kind: "timeout" }, "timed out"],
    [{ kind: "idle_timeout", idleMs: 300_000 }, "printed nothing for 300 s"],
    [{ kind: "canceled" }, "was canceled"],
    [{ kind: "spawn_failed", message: "spawn gemini ENOENT" }, "could not be started (spawn gemini ENOENT)"],
    [{ kind: "stopped", reason: "the API keeps refusing the key" }, "was stopped: the API keeps refusing the key"],
  ];
  for (const [ending, words] of cases) it(`${ending.kind} -> "${words}"`, () => expect(describeProcessEnding(ending)).toBe(words));

  it("reads Node's exit code and signal pair", () => {
    expect(endingOfExit(0, null)).toEqual({ kind: "exited", code: 0 });
    expect(endingOfExit(null, "SIGTERM")).toEqual({ kind: "killed", signal: "SIGTERM" });
    expect(endingOfExit(null, null)).toEqual({ kind: "killed", signal: "(unknown)" });
  });
});
