/**
 * The agent jail with the real gemini binary against the mock model: the scripted agent has gemini's own shell
 * tool run every escape a hostile agent tries (read a solve's task file, directly and through /proc, a file outside
 * the workspace, another job's folder, a TCP listener on 127.0.0.1 that is not the model, leave a process behind,
 * and use a privilege: uid 0, a capability, open_by_handle_at on a host file, /proc/sys, ptrace, a user namespace).
 * Each must fail while the job's real work, writing the artifact, succeeds. A control run with `jail: "none"` shows
 * the same probes do escape when the engine is not jailed, so the test can fail.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALL_JAIL_ESCAPES_BLOCKED,
  jailEscapeCommand,
  jailEscapeVerdicts,
  ALL_PRIVILEGES_ESCAPED,
  privilegeVerdicts,
  unconfinedConfinement,
  processesUsing,
  setUpJailEscapeTargets,
  type JailEscapeSetup,
} from "@skillrig/engine-kit";
import { runJob } from "@skillrig/skills";
import { startMockModel } from "@skillrig/mock-model";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { engineRunner, tempDir } from "./support.js";

let setup: JailEscapeSetup;

beforeAll(async () => {
  setup = await setUpJailEscapeTargets(tempDir("skillrig-jail-targets-"));
});
afterAll(async () => {
  await setup?.close();
});

async function runProbes(jail: "auto" | "none") {
  const mock = await startMockModel({
    scenario: {
      turns: [
        { shell: { command: jailEscapeCommand(setup.targets) } },
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
      ],
    },
  });
  try {
    process.env.SKILLRIG_JAIL_TEST_KEY = "gm-test-key";
    const { runner } = engineRunner(
      new GeminiEnginePlugin({ base_url: mock.url, api_key_env: "SKILLRIG_JAIL_TEST_KEY", approval_mode: "yolo", jail }),
    );
    const before = setup.connections();
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } });
    const probes = readFileSync(join(result.run_dir, "workspace/probes.txt"), "utf8");
    return { result, probes, verdicts: jailEscapeVerdicts(probes), tcpConnections: setup.connections() - before };
  } finally {
    await mock.close();
  }
}

describe("gemini in the agent jail", () => {
  it("every escape fails, the artifact is written, and the result says how the engine was confined", async () => {
    const { result, probes, verdicts, tcpConnections } = await runProbes("auto");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
    expect(probes).toContain("probes-done");
    expect(verdicts).toEqual(ALL_JAIL_ESCAPES_BLOCKED);
    expect(tcpConnections).toBe(0);
    // No uid 0, no capability (bounding set included), the seccomp filter: what the privilege probes met.
    expect(result.engine_confinement).toEqual({
      isolation: "namespaces",
      network: "model-endpoint-only",
      uid: expect.any(Number),
      capabilities: "none",
      seccomp: true,
      userNamespaces: false,
    });
    if (process.getuid?.() === 0) expect(result.engine_confinement?.uid).not.toBe(0);
    expect(setup.sleepersLeft()).toEqual([]);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it('control: with jail "none" the same probes escape (and the result says the engine ran unconfined)', async () => {
    const { result, verdicts, tcpConnections } = await runProbes("none");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(verdicts["task-file"]).toBe("ESCAPED");
    expect(verdicts["task-file-via-proc"]).toBe("ESCAPED");
    expect(verdicts["outside-file"]).toBe("ESCAPED");
    expect(verdicts["tcp-listener"]).toBe("ESCAPED");
    expect(tcpConnections).toBeGreaterThan(0);
    expect(result.engine_confinement).toEqual(unconfinedConfinement());
    // As root, unconfined, the agent holds every privilege the jail takes away.
    if (process.getuid?.() === 0) expect(privilegeVerdicts(verdicts)).toEqual(ALL_PRIVILEGES_ESCAPED);
    expect(result.warnings?.join("\n")).toMatch(/agent jail: the engine runs unconfined \(level "none" was chosen\)/);
  });

  it("an answer file the agent symlinked to a runner-only file is not read back, nor sent to the model in a repair turn", async () => {
    // Hostile: the agent cannot read the file, but the runner (root) reads the answer file after the run; without the
    // guard the hidden text became the "answer", failed to parse, and went back to the model in the repair prompt.
    const { secret, outsideFile } = setup.targets;
    const mock = await startMockModel({
      scenario: {
        turns: [
          { shell: { command: `ln -sfn '${outsideFile}' .skillrig/result.json && ls -l .skillrig` } },
          { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
          { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
          { json: { greeting_file: "greeting.txt", message: "Hello again, Ada!" } },
        ],
      },
    });
    try {
      process.env.SKILLRIG_JAIL_TEST_KEY = "gm-test-key";
      const { runner } = engineRunner(
        new GeminiEnginePlugin({ base_url: mock.url, api_key_env: "SKILLRIG_JAIL_TEST_KEY", approval_mode: "yolo", repair_turns: 1 }),
      );
      const result = await runJob(runner, { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } });
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      expect(result.output).toMatchObject({ message: "Hello, Ada!" });
      expect(mock.requests.length).toBeGreaterThan(0);
      expect(mock.requests.filter((r) => JSON.stringify(r.body).includes(secret))).toEqual([]);
      expect(readFileSync(join(result.run_dir, "result.json"), "utf8")).not.toContain(secret);
    } finally {
      await mock.close();
    }
  });

  it("a host that requires the jail (the jobs server by default) refuses an unjailed engine before the CLI runs", async () => {
    const mock = await startMockModel({ scenario: { turns: [{ json: { greeting_file: "greeting.txt", message: "Hi" } }] } });
    try {
      process.env.SKILLRIG_JAIL_TEST_KEY = "gm-test-key";
      const { runner } = engineRunner(new GeminiEnginePlugin({ base_url: mock.url, api_key_env: "SKILLRIG_JAIL_TEST_KEY", jail: "none" }));
      const result = await runJob(
        runner,
        { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } },
        { requireEngineJail: true },
      );
      expect(result.status).toBe("failed");
      expect(result.error?.code).toBe("sandbox_unavailable");
      expect(result.error?.message).toMatch(/the engine would run unjailed, which this host does not allow/);
      expect(mock.requests).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});
