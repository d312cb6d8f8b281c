/**
 * What the shared engine suite needs to know about one engine, and the small helpers its cases (and an engine's own
 * tests) run a job with: a runner over the fixture skills, and one job against a mock model the test starts itself.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runner, type EngineEvent, type JobResult, type SkillInstall, type SkillrigPlugin } from "@skillrig/core";
import { startMockModel, type RecordedRequest, type Scenario, type Turn } from "@skillrig/mock-model";
import sandboxPlugin from "@skillrig/sandbox";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import type { EngineFailure, StreamParser } from "../adapter.js";
import type { EnginePluginClass } from "../engine-plugin.js";
import type { BaseEngineOptions } from "../options.js";
import type { ProcessRunResult } from "../run-process.js";

/** Engine options as a test writes them: the plugin's own, or a few of them to merge over others. */
export type TestEngineOptions<O extends BaseEngineOptions> = O & Record<string, unknown>;

export interface EngineTestSettings<O extends BaseEngineOptions = BaseEngineOptions, P extends StreamParser = StreamParser> {
  /** The engine name a job asks for (`"gemini"`). */
  engine: string;
  /** The CLI's name as the adapter words its messages (`"Gemini CLI"`). */
  displayName: string;
  /** The plugin class `createEnginePlugin` made. */
  plugin: EnginePluginClass<O>;
  /** The CLI version the pinned binary reports. */
  version: string;
  /**
   * The plugin's test/fixtures folder: `skills/` (a `write-greeting` skill whose runner.json lists this engine),
   * `transcripts/` (`<name>.stdout`, `<name>.stderr`, optionally `<name>.json` with `exitCode` and `command`)
   * and, for the drift case, `event-shape.json`.
   */
  fixtures: string;
  /** The API key the tests put in the key variable (the mock model records it). */
  testKey: string;
  /** Options that point the engine at a mock model listening at `url`, its key in the variable `apiKeyEnv`. */
  againstMock(url: string, apiKeyEnv: string): TestEngineOptions<O>;
  /** Options that let the agent's shell tool run without asking (the jail probes and the drift run use a shell call). */
  shellAllowed?: Partial<TestEngineOptions<O>>;
  /** How the scripted agent writes greeting.txt ("Hello, Ada!\n"); a `write_file` turn unless the engine needs another. */
  writeGreeting?: Turn;
  /** Transcript replay: the engine's stream parser for the transcript `name`, and its failure classification. */
  transcripts: {
    parser(name: string): P;
    classify(run: ProcessRunResult, parser: P): EngineFailure | undefined;
  };
}

/** The environment variable the suite's jobs read the test key from. */
export function testKeyEnv(settings: Pick<EngineTestSettings, "engine">): string {
  return `SKILLRIG_${settings.engine.toUpperCase()}_TEST_KEY`;
}

export function tempDir(prefix = "skillrig-engine-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A runner with the skill protocol plugin and `engine`, its config listing the fixture skills. */
export function engineRunner(settings: Pick<EngineTestSettings, "fixtures">, engine: SkillrigPlugin): { runner: Runner; dir: string } {
  const dir = tempDir();
  const runner = new Runner({ cwd: dir, configDir: dir, config: { skills: { roots: [join(settings.fixtures, "skills")] } } });
  // The agent jail comes through the runner's sandbox hook, as in a project: the default sandbox, tapped last.
  runner.use(skillProtocolPlugin()).use(engine).use(sandboxPlugin());
  return { runner, dir };
}

/** The fixture skill's job: write a greeting for Ada. */
export function greetingJob(
  settings: Pick<EngineTestSettings, "engine">,
  options?: { timeout_ms?: number; engine?: Record<string, unknown>; skill_install?: SkillInstall },
) {
  return { skill_id: "write-greeting", engine: settings.engine, input: { name: "Ada" }, ...(options ? { options } : {}) };
}

/** Runs the greeting job with `options` and collects its events. */
export async function runGreeting<O extends BaseEngineOptions>(
  settings: EngineTestSettings<O, StreamParser>,
  options: TestEngineOptions<O>,
  job: { timeout_ms?: number; requireEngineJail?: boolean; skill_install?: SkillInstall } = {},
): Promise<{ result: JobResult; events: EngineEvent[] }> {
  const { runner } = engineRunner(settings, new settings.plugin(options));
  const events: EngineEvent[] = [];
  const jobOptions = {
    ...(job.timeout_ms === undefined ? {} : { timeout_ms: job.timeout_ms }),
    ...(job.skill_install === undefined ? {} : { skill_install: job.skill_install }),
  };
  const result = await runJob(runner, greetingJob(settings, Object.keys(jobOptions).length > 0 ? jobOptions : undefined), {
    onEvent: (e) => events.push(e),
    ...(job.requireEngineJail ? { requireEngineJail: true } : {}),
  });
  return { result, events };
}

export interface MockRun {
  result: JobResult;
  events: EngineEvent[];
  /** What the CLI sent the mock model. */
  requests: RecordedRequest[];
}

/**
 * One greeting job against a mock model playing `scenario`, started for this job so its requests can be inspected:
 * the engine gets `settings.againstMock(...)` with `engine` merged over it; the key variable holds `settings.testKey`.
 */
export async function runAgainstMock<O extends BaseEngineOptions>(
  settings: EngineTestSettings<O, StreamParser>,
  scenario: Scenario,
  options: { timeout_ms?: number; engine?: Partial<TestEngineOptions<O>>; requireEngineJail?: boolean; skill_install?: SkillInstall } = {},
): Promise<MockRun> {
  const mock = await startMockModel({ scenario });
  try {
    return await withTestKey(settings, async (keyEnv) => {
      const engine = { ...settings.againstMock(mock.url, keyEnv), ...options.engine } as TestEngineOptions<O>;
      const { result, events } = await runGreeting(settings, engine, options);
      return { result, events, requests: [...mock.requests] };
    });
  } finally {
    await mock.close();
  }
}

/** Runs `fn` with `settings.testKey` in the suite's key variable (named to `fn`), and puts the variable back after. */
export async function withTestKey<T>(
  settings: Pick<EngineTestSettings, "engine" | "testKey">,
  fn: (keyEnv: string) => Promise<T>,
): Promise<T> {
  const keyEnv = testKeyEnv(settings);
  const previous = process.env[keyEnv];
  process.env[keyEnv] = settings.testKey;
  try {
    return await fn(keyEnv);
  } finally {
    if (previous === undefined) delete process.env[keyEnv];
    else process.env[keyEnv] = previous;
  }
}

/** The turn that writes greeting.txt, as this engine's scripted agent does it. */
export function writeGreetingTurn(settings: Pick<EngineTestSettings, "writeGreeting">): Turn {
  return settings.writeGreeting ?? { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } };
}
