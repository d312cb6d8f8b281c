/**
 * What one engine job runs with, settled before the CLI starts: a fresh engine folder and workspace, the time
 * limits, the binary, the model (the mock model when `mock_scenario` is set) and the adapter's run context with the
 * prompt the CLI gets.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { JobExecuteRequest, JobWork } from "@skillrig/core";
import { type AgentBounds, type AgentBoundsConfig, agentBounds } from "@skillrig/core";
import type { MockModel } from "@skillrig/mock-model";
import { startScenarioModel } from "./scenario-model.js";
import type { EngineAdapter, EngineRunContext } from "./adapter.js";
import type { AgentSandboxSource } from "./engine-jail.js";
import { startJobMeter, type JobMeter } from "./job-meter.js";
import type { BaseEngineOptions } from "./options.js";
import { engineDirs, prepareWorkspace } from "./workspace.js";

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
/** The key the CLI gets when it talks to a mock model (the mock accepts any key). */
export const MOCK_API_KEY = "skillrig-mock-key";

export interface RunEngineJobOptions<O extends BaseEngineOptions> {
  adapter: EngineAdapter<O>;
  request: JobExecuteRequest;
  /** Options after the job's engine options were merged and validated. */
  options: O;
  /** Where relative paths in options (mock_scenario) resolve: the config file's folder. */
  configDir: string;
  /** The runner's `sandbox` hook asked for the agent profile (engine-plugin.ts); default @skillrig/sandbox's. */
  agentSandbox?: AgentSandboxSource;
  /** The config's `sandbox.agent`: the bounds on the engine's output, processes and folders (defaults filled in). */
  bounds?: AgentBoundsConfig;
}

export interface EngineLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
  /** The job's own limit, when it set one (the message then names it). */
  jobTimeoutMs?: number;
}

export interface EngineRun<O extends BaseEngineOptions> {
  adapter: EngineAdapter<O>;
  options: O;
  work: JobWork;
  limits: EngineLimits;
  /** The mock model the CLI talks to, when `mock_scenario` is set; closed when the job ends. */
  mock?: MockModel;
  /** The metering proxy in front of the model and the job's budget; closed when the job ends. */
  meter: JobMeter;
  /** The adapter's context; `ctx.prompt` is the turn's prompt (a repair turn replaces it). */
  ctx: EngineRunContext<O>;
  /** The first turn's prompt, which a repair prompt quotes. */
  firstPrompt: string;
  agentSandbox?: AgentSandboxSource;
  /** What the engine may print, emit, run and write (output-guard.ts, workspace-watch.ts, the jail's rlimits). */
  bounds: AgentBounds;
}

function resolveBinary<O extends BaseEngineOptions>(adapter: EngineAdapter<O>, options: O, configDir: string): string {
  if (!options.binary) return adapter.defaultBinary();
  return isAbsolute(options.binary) || !options.binary.includes("/") ? options.binary : resolve(configDir, options.binary);
}

export async function prepareEngineRun<O extends BaseEngineOptions>(input: RunEngineJobOptions<O>): Promise<EngineRun<O>> {
  const { adapter, request, options, configDir } = input;
  const { work } = request;
  const dirs = engineDirs(request);
  // A fresh engine folder per job: a re-run in the same run folder must not see the last run's home.
  rmSync(dirs.engineDir, { recursive: true, force: true });
  prepareWorkspace(request, dirs, adapter.contextFileName);

  const apiKeyEnv = options.api_key_env ?? adapter.defaultApiKeyEnv;
  let mock: MockModel | undefined;
  let baseUrl = options.base_url;
  let apiKey = apiKeyEnv === undefined ? undefined : process.env[apiKeyEnv];
  if (options.mock_scenario !== undefined) {
    mock = await startScenarioModel({
      scenario: options.mock_scenario,
      configDir,
      dialects: adapter.mockDialects,
      attempt: work.request.options?.attempt ?? 1,
      engine: adapter.displayName,
    });
    baseUrl = adapter.mockBaseUrl(mock.url);
    apiKey = MOCK_API_KEY;
  }
  // The model is reached through the metering proxy (cost.meter): the engine's base URL becomes the proxy's, and
  // the job's signal also stops the engine when the budget is reached.
  const meter = await startJobMeter(work, baseUrl ?? adapter.defaultBaseUrl, options.model);
  if (meter.proxiedBaseUrl !== undefined) baseUrl = meter.proxiedBaseUrl;
  const meteredWork: typeof work = { ...work, signal: AbortSignal.any([work.signal, meter.signal]) };
  const partial: Omit<EngineRunContext<O>, "prompt"> = {
    request,
    options,
    dirs,
    baseUrl,
    apiKey,
    apiKeyEnv,
    outputSchema: work.skill.schemas.output?.schema,
    outputFile: join(dirs.workspace, ".skillrig", "result.json"),
    binary: resolveBinary(adapter, options, configDir),
  };
  mkdirSync(dirname(partial.outputFile), { recursive: true });
  rmSync(partial.outputFile, { force: true });
  // A plain Agent Skill's answer is free text: no engine's output contract (a demand for JSON) is added to its prompt.
  const suffix = work.skill.plain === true ? "" : (adapter.promptSuffix?.(partial) ?? "");
  const prompt = suffix ? `${request.prompt.text.trimEnd()}\n\n${suffix}` : request.prompt.text;
  // The prompt the CLI really gets (prompt.md holds the rendered one, without the engine's contract).
  if (suffix) writeFileSync(join(dirs.logsDir, `${work.engine}.prompt.md`), prompt);
  return {
    adapter,
    options,
    work: meteredWork,
    limits: {
      timeoutMs: work.request.options?.timeout_ms ?? options.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      idleTimeoutMs: options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS,
      jobTimeoutMs: work.request.options?.timeout_ms,
    },
    mock,
    meter,
    ctx: { ...partial, prompt },
    firstPrompt: prompt,
    agentSandbox: input.agentSandbox,
    bounds: agentBounds(input.bounds),
  };
}
