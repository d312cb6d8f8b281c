/**
 * The agent jail with the real codex binary against the mock model: the scripted agent has codex's own shell
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
import CodexEnginePlugin from "@skillrig/engine-codex";
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
    process.env.SKILLRIG_JAIL_TEST_KEY = "sk-test-codex";
    const { runner } = engineRunner(
      new CodexEnginePlugin({
        base_url: `${mock.url}/v1`,
        api_key_env: "SKILLRIG_JAIL_TEST_KEY",
        retries: 0,
        jail,
        ...(jail === "none" ? { sandbox: "danger-full-access" as const } : {}),
      }),
    );
    const before = setup.connections();
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" } });
    const probes = readFileSync(join(result.run_dir, "workspace/probes.txt"), "utf8");
    return { result, probes, verdicts: jailEscapeVerdicts(probes), tcpConnections: setup.connections() - before };
  } finally {
    await mock.close();
  }
}

describe("codex in the agent jail", () => {
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
      userNamespaces: true,
    });
    if (process.getuid?.() === 0) expect(result.engine_confinement?.uid).not.toBe(0);
    expect(setup.sleepersLeft()).toEqual([]);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it('control: with jail "none" (and codex\'s own sandbox off) the same probes escape (and the result says the engine ran unconfined)', async () => {
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
});
