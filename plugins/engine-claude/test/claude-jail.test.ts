/**
 * The agent jail with the real claude binary against the mock model (Anthropic's Messages API): the scripted agent
 * has Claude Code's own Bash tool run every escape a hostile agent tries (engine-kit's jail escape probes: a solve's
 * task file, directly and through /proc, a file outside the workspace, another job's folder, a TCP listener on
 * 127.0.0.1 that is not the model, a process left behind). Each must fail while the artifact is written. The
 * control run with `jail: "none"` shows the same probes escape, so the test can fail. Claude gets the jail from
 * engine-kit with no code of its own.
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
import { scenario, startMockModel, turn } from "@skillrig/mock-model";
import ClaudeEnginePlugin from "@skillrig/engine-claude";
import { engineRunner, tempDir } from "./support.js";

const KEY_ENV = "SKILLRIG_CLAUDE_JAIL_TEST_KEY";
let setup: JailEscapeSetup;

beforeAll(async () => {
  process.env[KEY_ENV] = "sk-ant-test-key";
  setup = await setUpJailEscapeTargets(tempDir("skillrig-jail-targets-"));
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await setup?.close();
});

async function runProbes(jail: "auto" | "none") {
  const mock = await startMockModel({
    scenario: scenario(
      turn.shell(jailEscapeCommand(setup.targets)),
      turn.shell("printf 'Hello, Ada!\\n' > greeting.txt"),
      turn.json({ greeting_file: "greeting.txt", message: "Hello, Ada!" }),
    ),
  });
  try {
    const { runner } = engineRunner(
      new ClaudeEnginePlugin({ base_url: mock.url, api_key_env: KEY_ENV, retries: 0, allowed_tools: ["Bash"], jail }),
    );
    const before = setup.connections();
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "claude", input: { name: "Ada" } });
    const probes = readFileSync(join(result.run_dir, "workspace/probes.txt"), "utf8");
    return { result, probes, verdicts: jailEscapeVerdicts(probes), tcpConnections: setup.connections() - before };
  } finally {
    await mock.close();
  }
}

describe("claude in the agent jail", () => {
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

  it('control: with jail "none" the same probes escape', async () => {
    const { result, verdicts, tcpConnections } = await runProbes("none");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(verdicts["task-file"]).toBe("ESCAPED");
    expect(verdicts["outside-file"]).toBe("ESCAPED");
    expect(verdicts["tcp-listener"]).toBe("ESCAPED");
    expect(tcpConnections).toBeGreaterThan(0);
    expect(result.engine_confinement).toEqual(unconfinedConfinement());
    // As root, unconfined, the agent holds every privilege the jail takes away.
    if (process.getuid?.() === 0) expect(privilegeVerdicts(verdicts)).toEqual(ALL_PRIVILEGES_ESCAPED);
  });
});
