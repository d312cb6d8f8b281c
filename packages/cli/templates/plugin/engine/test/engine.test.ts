/**
 * The plugin through the real job flow (runJob of @skillrig/skills, the agent jail, the CLI as a real process), with
 * engine-kit's testing helpers; and the CLI's stream replayed through the parser without running it.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { replayCapture } from "@skillrig/engine-kit";
import { engineRunner, jobFailure } from "@skillrig/engine-kit/testing";
import { runJob } from "@skillrig/skills";
import __PLUGIN__, { adapter, createParser } from "../src/index.js";

const fixtures = resolve(import.meta.dirname, "fixtures");

function run(options = {}) {
  const { runner } = engineRunner({ fixtures }, new __PLUGIN__(options));
  return runJob(runner, { skill_id: "echo-inputs", engine: adapter.engine, input: { name: "Ada" } }).finally(() => runner.close());
}

describe("__NAME__", () => {
  it("runs a skill job with the CLI and answers with its output", async () => {
    const result = await run();
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toEqual({ name: "Ada" });
  });

  it("passes its own option to the CLI", async () => {
    const result = await run({ greeting: "Hello" });
    expect(result.output).toEqual({ name: "Ada", greeting: "Hello" });
  });

  it("names a CLI that is not installed", async () => {
    const result = await run({ binary: "/nonexistent/agent" });
    expect(jobFailure(result).code).toBe("engine_not_found");
  });

  it("refuses an option of the wrong type when it is constructed", () => {
    expect(() => new __PLUGIN__({ greeting: 3 } as never)).toThrow(/greeting/);
  });

  it("reads the CLI's stream: the last message is the answer, an error line fails the run", () => {
    const ok = createParser();
    replayCapture(ok, { stdout: '{"type":"message","text":"{}"}\n{"type":"done"}\n', stderr: "", exitCode: 0, command: "agent" });
    expect(ok.finalMessage()).toBe("{}");
    const failed = createParser();
    const { run: ended } = replayCapture(failed, {
      stdout: '{"type":"error","message":"no model"}\n',
      stderr: "",
      exitCode: 1,
      command: "agent",
    });
    expect(adapter.classify(ended, failed, undefined as never)).toEqual({ kind: "crash", message: "no model" });
  });
});
