/**
 * Gemini's own agent-jail cases (every escape probe, and the unconfined control run, are engine-kit's shared suite
 * in gemini-engine.test.ts): an answer file the agent turned into a symlink to a runner-only file, and a host that
 * requires the jail refusing an unjailed engine.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpJailEscapeTargets, type JailEscapeSetup } from "@skillrig/engine-kit";
import { jobFailure, runAgainstMock, tempDir } from "@skillrig/engine-kit/testing";
import { gemini } from "./settings.js";

let setup: JailEscapeSetup;

beforeAll(async () => {
  setup = await setUpJailEscapeTargets(tempDir("skillrig-jail-targets-"));
});
afterAll(async () => {
  await setup?.close();
});

describe("gemini in the agent jail", () => {
  it("an answer file the agent symlinked to a runner-only file is not read back, nor sent to the model in a repair turn", async () => {
    // Hostile: the agent cannot read the file, but the runner (root) reads the answer file after the run; without the
    // guard the hidden text became the "answer", failed to parse, and went back to the model in the repair prompt.
    const { secret, outsideFile } = setup.targets;
    const { result, requests } = await runAgainstMock(
      gemini,
      {
        turns: [
          { shell: { command: `ln -sfn '${outsideFile}' .skillrig/result.json && ls -l .skillrig` } },
          { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
          { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
          { json: { greeting_file: "greeting.txt", message: "Hello again, Ada!" } },
        ],
      },
      { engine: { ...gemini.shellAllowed, repair_turns: 1 } },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ message: "Hello, Ada!" });
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => JSON.stringify(r.body).includes(secret))).toEqual([]);
    expect(readFileSync(join(result.run_dir, "result.json"), "utf8")).not.toContain(secret);
  });

  it("a host that requires the jail (the jobs server by default) refuses an unjailed engine before the CLI runs", async () => {
    const { result, requests } = await runAgainstMock(
      gemini,
      { turns: [{ json: { greeting_file: "greeting.txt", message: "Hi" } }] },
      { engine: { jail: "none" }, requireEngineJail: true },
    );
    expect(result.status).toBe("failed");
    expect(jobFailure(result).code).toBe("sandbox_unavailable");
    expect(jobFailure(result).message).toMatch(/the engine would run unjailed, which this host does not allow/);
    expect(requests).toEqual([]);
  });
});
