/**
 * The shared suite every engine plugin runs: `describeEngine(settings, cases)` registers the vitest cases that do
 * not depend on which CLI it is. The real binary against the mock model (a rejected key, a model that hangs, a model
 * API that cannot be reached, a final answer with no JSON, a missing binary, bad options), the agent jail (every
 * escape probe blocked, and the unconfined control run that shows the probes can escape), the event-stream drift
 * check against the recorded shape, and the opt-in live tier against the real API.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "@skillrig/mock-model";
import { runJob } from "@skillrig/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamParser } from "../adapter.js";
import { eventShape, eventShapeDiff, type EventShape } from "../event-shape.js";
import {
  ALL_JAIL_ESCAPES_BLOCKED,
  ALL_PRIVILEGES_ESCAPED,
  jailEscapeCommand,
  jailEscapeVerdicts,
  jailProbeErrors,
  privilegeVerdicts,
  setUpJailEscapeTargets,
  unconfinedConfinement,
  type JailEscapeSetup,
} from "../jail-escape-probes.js";
import type { BaseEngineOptions } from "../options.js";
import { processesUsing } from "@skillrig/process";
import {
  engineRunner,
  greetingJob,
  runAgainstMock,
  runGreeting,
  tempDir,
  type EngineTestSettings,
  type TestEngineOptions,
  withTestKey,
  writeGreetingTurn,
} from "./engine-settings.js";
import { jailedConfinement, jobConfinement, jobFailure } from "./job-result.js";
import { type Replayed, transcriptReplayer } from "./transcripts.js";
import { describeUsage } from "./usage-suite.js";

/** What the cases expect of this engine, where engines differ; a case whose entry is missing is not registered. */
export interface EngineSuiteCases<O extends BaseEngineOptions = BaseEngineOptions, P extends StreamParser = StreamParser> {
  /** Options the plugin's constructor refuses (its own options), and an engine option a job may not pass. */
  badOptions: {
    inConstructor: Array<{ options: Record<string, unknown>; throws: RegExp }>;
    perJob: { options: Record<string, unknown>; says: RegExp };
  };
  /** The model API answers 401 with `message`: engine_auth_failed, the message saying each of `says`. */
  rejectedKey: { message: string; says: string[] };
  /** The model hangs: the job's time limit (`timeout_ms`) ends the run. */
  hang: { timeout_ms: number };
  /**
   * No model API listens at the base URL: the parser stops the CLI (a message matching `says`) before `timeout_ms`.
   * The engine runs with `options` (the settings' `againstMock` unless given).
   */
  unreachable: { options?(url: string, apiKeyEnv: string): TestEngineOptions<O>; timeout_ms: number; says: RegExp };
  /** The final answer is `answer` (no JSON in it): engine_failed, the message matching `says`. */
  malformed: { answer: string; engine?: Partial<TestEngineOptions<O>>; says: RegExp };
  /** The agent jail: whether the jailed CLI may make user namespaces, and options to run it unconfined (jail "none"). */
  jail: { userNamespaces: boolean; unconfined?: Partial<TestEngineOptions<O>> };
  /** Compare the pinned CLI's event stream with fixtures/event-shape.json (re-record with SKILLRIG_RECORD_SHAPES=1). */
  drift: true;
  /**
   * Recorded transcripts (fixtures/transcripts): `success` names one of a run that succeeded, which must replay to no
   * failure, its `finalMessage` and its `usage`; `also` adds the engine's own assertions on the same replay.
   */
  transcripts?: {
    success: { name: string; exitCode?: number; finalMessage: string; usage: ReturnType<StreamParser["usage"]> };
    also?(replayed: Replayed<P>): void;
  };
  /** The opt-in tier against the real API: runs only when the variable `keyEnv` is set. */
  live?: { keyEnv: string; api: string; options(): TestEngineOptions<O> };
}

export function describeEngine<O extends BaseEngineOptions, P extends StreamParser>(
  settings: EngineTestSettings<O, P>,
  cases: EngineSuiteCases<O, P>,
): void {
  if (cases.transcripts) describeTranscripts(settings, cases.transcripts);
  describePreflight(settings, cases);
  describeAgainstMockModel(settings, cases);
  describeUsage(settings);
  describeJail(settings, cases);
  describeDrift(settings);
  if (cases.live) describeLive(settings, cases.live);
}

function describeTranscripts<P extends StreamParser>(
  settings: Pick<EngineTestSettings<never, P>, "engine" | "fixtures" | "transcripts">,
  transcripts: NonNullable<EngineSuiteCases<BaseEngineOptions, P>["transcripts"]>,
): void {
  const replay = transcriptReplayer(settings);
  const { success } = transcripts;
  describe(`${settings.engine} transcripts`, () => {
    it(`${success.name}: a run that succeeded replays to no failure, its final message and its usage`, () => {
      const replayed = replay(success.name, success.exitCode);
      expect(replayed.failure).toBeUndefined();
      expect(replayed.parser.finalMessage()).toBe(success.finalMessage);
      expect(replayed.parser.usage()).toEqual(success.usage);
      transcripts.also?.(replayed);
    });
  });
}

function describePreflight<O extends BaseEngineOptions>(settings: EngineTestSettings<O, StreamParser>, cases: EngineSuiteCases<O>): void {
  const { engine, displayName, plugin: Plugin } = settings;
  const unsetKey = "SKILLRIG_UNSET_KEY_FOR_TEST";
  describe(`${engine} engine: problems found before the CLI runs`, () => {
    // An engine that needs no key (auth: "none") is never asked for one: the case does not apply to it.
    if (Plugin.auth !== "none") {
      it("a missing API key fails at once as engine_auth_failed naming the variable", async () => {
        const { result } = await runGreeting(settings, { api_key_env: unsetKey } as TestEngineOptions<O>);
        expect(jobFailure(result).code).toBe("engine_auth_failed");
        expect(jobFailure(result).message).toContain(`${displayName} has no API key: the environment variable ${unsetKey} is not set`);
      });
    }

    it("a binary that does not exist is engine_not_found naming the path and the option", async () => {
      const { result } = await runGreeting(settings, {
        binary: `/nonexistent/${engine}`,
        mock_scenario: { turns: [{ text: "{}" }] },
      } as TestEngineOptions<O>);
      expect(jobFailure(result).code).toBe("engine_not_found");
      const path = `/nonexistent/${engine}`.replace(/\//g, "\\/");
      expect(jobFailure(result).message).toMatch(new RegExp(`cannot start ${displayName} at ${path}: .*ENOENT.*"binary" option`));
    });

    it("bad options: in the constructor (config load) and per job (request engine options), each named", async () => {
      const { badOptions } = cases;
      for (const { options, throws } of badOptions.inConstructor) expect(() => new Plugin(options as O)).toThrow(throws);
      const { runner } = engineRunner(settings, new Plugin({ mock_scenario: { turns: [{ text: "{}" }] } } as O));
      const result = await runJob(runner, greetingJob(settings, { engine: badOptions.perJob.options }));
      expect(jobFailure(result).code).toBe("invalid_config");
      expect(jobFailure(result).message).toMatch(badOptions.perJob.says);
    });
  });
}

function describeAgainstMockModel<O extends BaseEngineOptions>(
  settings: EngineTestSettings<O, StreamParser>,
  cases: EngineSuiteCases<O>,
): void {
  const { engine, displayName } = settings;
  describe(`${engine} engine against the mock model`, () => {
    it("ends a 401 as engine_auth_failed with the CLI's message", async () => {
      const { rejectedKey } = cases;
      const { result } = await runAgainstMock(settings, { turns: [{ error: { status: 401, message: rejectedKey.message } }] });
      expect(result.status).toBe("failed");
      expect(jobFailure(result).code).toBe("engine_auth_failed");
      for (const part of rejectedKey.says) expect(jobFailure(result).message).toContain(part);
    });

    it("ends a hanging model as a timeout and leaves no process behind", async () => {
      const { timeout_ms } = cases.hang;
      const { result } = await runAgainstMock(settings, { turns: [{ hang: true }] }, { timeout_ms });
      expect(result.status).toBe("failed");
      expect(jobFailure(result).code).toBe("timeout");
      expect(jobFailure(result).message).toContain(`${displayName} did not finish within the job's time limit (${timeout_ms} ms)`);
      expect(processesUsing(result.run_dir)).toEqual([]);
    });

    it(`stops ${displayName} when it cannot reach the model API instead of retrying for minutes`, async () => {
      // A port that was just free: connection refused on loopback, as the CLI sees it without network.
      const closed = await startMockModel({ scenario: { turns: [{ text: "x" }] } });
      await closed.close();
      const { unreachable } = cases;
      const { result } = await withTestKey(settings, (keyEnv) =>
        runGreeting(settings, (unreachable.options ?? settings.againstMock)(closed.url, keyEnv), { timeout_ms: unreachable.timeout_ms }),
      );
      expect(jobFailure(result).code).toBe("engine_failed");
      expect(jobFailure(result).message).toMatch(unreachable.says);
      expect(processesUsing(result.run_dir)).toEqual([]);
    });

    it("ends as malformed output when the final answer holds no JSON", async () => {
      const { malformed } = cases;
      const { result } = await runAgainstMock(settings, { turns: [{ text: malformed.answer }] }, { engine: malformed.engine });
      expect(result.status).toBe("failed");
      expect(jobFailure(result).code).toBe("engine_failed");
      expect(jobFailure(result).message).toMatch(malformed.says);
    });
  });
}

function describeJail<O extends BaseEngineOptions>(settings: EngineTestSettings<O, StreamParser>, cases: EngineSuiteCases<O>): void {
  let setup: JailEscapeSetup;

  // The scripted agent has the engine's own shell tool run every probe, then does the job's real work.
  async function runProbes(jail: "auto" | "none") {
    const before = setup.connections();
    const { result } = await runAgainstMock(
      settings,
      {
        turns: [
          { shell: { command: jailEscapeCommand(setup.targets) } },
          writeGreetingTurn(settings),
          { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
        ],
      },
      { engine: { ...settings.shellAllowed, jail, ...(jail === "none" ? cases.jail.unconfined : {}) } as Partial<TestEngineOptions<O>> },
    );
    const probes = readFileSync(join(result.run_dir, "workspace/probes.txt"), "utf8");
    return { result, probes, verdicts: jailEscapeVerdicts(probes), tcpConnections: setup.connections() - before };
  }

  describe(`${settings.engine} in the agent jail`, () => {
    beforeAll(async () => {
      setup = await setUpJailEscapeTargets(tempDir("skillrig-jail-targets-"));
    });
    afterAll(async () => {
      await setup?.close();
    });

    it("every escape fails, the artifact is written, and the result says how the engine was confined", async () => {
      const { result, probes, verdicts, tcpConnections } = await runProbes("auto");
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
      expect(probes).toContain("probes-done");
      expect(verdicts).toEqual(ALL_JAIL_ESCAPES_BLOCKED);
      expect(tcpConnections).toBe(0);
      // No uid 0, no capability (bounding set included), the seccomp filter: what the privilege probes met.
      expect(jobConfinement(result)).toEqual(jailedConfinement(cases.jail.userNamespaces));
      if (process.getuid?.() === 0) expect(jobConfinement(result)?.uid).not.toBe(0);
      // The kernel kills what is left in the jail's pid namespace once the jail ends, but not at once on a loaded
      // machine: a sleeper that escaped sleeps for an hour, so waiting seconds for the teardown hides nothing.
      expect(await sleepersAfterTeardown(setup)).toEqual([]);
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
      expect(jobConfinement(result)).toEqual(unconfinedConfinement());
      // As root, unconfined, the agent holds every privilege the jail takes away.
      if (process.getuid?.() === 0) {
        expect(privilegeVerdicts(verdicts), jailProbeErrors(join(result.run_dir, "workspace"))).toEqual(ALL_PRIVILEGES_ESCAPED);
      }
      expect(result.warnings?.join("\n")).toMatch(/agent jail: the engine runs unconfined \(level "none" was chosen\)/);
    });
  });
}

function describeDrift<O extends BaseEngineOptions>(settings: EngineTestSettings<O, StreamParser>): void {
  const shapeFile = join(settings.fixtures, "event-shape.json");
  describe(`${settings.displayName} event stream drift`, () => {
    it("the pinned CLI's events have the recorded shape (a tool call, a file write, a final message, usage)", async () => {
      const { result } = await runAgainstMock(
        settings,
        {
          turns: [
            { shell: { command: "echo drift-check" } },
            writeGreetingTurn(settings),
            { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
          ],
        },
        { engine: settings.shellAllowed },
      );
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      const actual = eventShape(readFileSync(join(result.run_dir, `logs/${settings.engine}.stdout.log`), "utf8"));
      if (process.env.SKILLRIG_RECORD_SHAPES === "1") {
        writeFileSync(shapeFile, `${JSON.stringify({ version: result.engine_version, shape: actual }, null, 2)}\n`);
        return;
      }
      const recorded = JSON.parse(readFileSync(shapeFile, "utf8")) as { version: string; shape: EventShape };
      const diff = eventShapeDiff(recorded.shape, actual);
      expect(
        diff,
        `${settings.displayName} ${result.engine_version} (recorded with ${recorded.version}) changed its event stream:\n${diff.join("\n")}`,
      ).toEqual([]);
      expect(result.engine_version).toBe(recorded.version);
    });
  });
}

function describeLive<O extends BaseEngineOptions>(
  settings: EngineTestSettings<O, StreamParser>,
  live: NonNullable<EngineSuiteCases<O>["live"]>,
): void {
  const key = process.env[live.keyEnv];
  // An opt-in tier: it needs a paid key and network, so without the key it is not part of the run (and says so).
  if (!key) {
    console.warn(
      `[engine-${settings.engine}] live tier not run: ${live.keyEnv} is not set (set it to run the write-greeting skill against the real ${live.api})`,
    );
    return;
  }
  describe(`${settings.engine} engine against the real ${live.api} (${live.keyEnv})`, () => {
    it("runs the write-greeting skill: artifact written, output valid", { timeout: 300_000 }, async () => {
      const { result } = await runGreeting(settings, live.options());
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      expect(readFileSync(result.artifacts[0]!.path, "utf8")).toMatch(/Ada/);
    });
  });
}

/** The probes' sleepers still running once the jail's teardown had up to 15 s to end them (none, for a jail). */
async function sleepersAfterTeardown(setup: JailEscapeSetup): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  let left = setup.sleepersLeft();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = setup.sleepersLeft();
  }
  return left;
}
