/**
 * The interface an engine writes. Everything else (workspace, homes, environment, the process and its
 * watchdogs, logs, output repair, the mock model, version detection) is engine-kit's: an adapter is
 * its command line, its settings files, its stream parser and its failure classification.
 */
import type { EngineEvent, EngineFailure, JobExecuteRequest, JsonSchema } from "@skillrig/core";
import type { MockDialect } from "@skillrig/mock-model";
import type { BaseEngineOptions } from "./options.js";
import type { EngineDirs } from "./workspace.js";
import type { ProcessRunResult } from "./run-process.js";
import type { ReportedUsage } from "./usage-record.js";

export interface EngineRunContext<O extends BaseEngineOptions = BaseEngineOptions> {
  request: JobExecuteRequest;
  /** Plugin options with the job's engine options merged over them, validated. */
  options: O;
  dirs: EngineDirs;
  /** The prompt to send: the rendered prompt plus the adapter's `promptSuffix`. */
  prompt: string;
  /** The model API base URL: `options.base_url`, or the mock model's (already through `mockBaseUrl`). */
  baseUrl?: string;
  /** The API key value, read from `options.api_key_env` (or the mock's dummy key). */
  apiKey?: string;
  /** Name of the variable holding the key (`options.api_key_env` or the adapter's default); none for an `auth: "none"` engine without either. */
  apiKeyEnv?: string;
  /** The skill's output schema, when it has one. */
  outputSchema?: JsonSchema;
  /** A file the final answer may be written to (by the CLI or by the model following the prompt's contract). */
  outputFile: string;
  /** The resolved executable. */
  binary: string;
}

export interface EngineInvocation {
  args: string[];
  /** The engine's own environment variables (added over the shared ones). */
  env: Record<string, string>;
  /** What the adapter changed or noticed, for the outcome's trace (what a schema conversion changed ...). */
  notes?: string[];
  /**
   * The CLI sandboxes its own tool commands with user namespaces (codex's bubblewrap): the agent jail lets it make
   * them, and keeps every other rule. Default false.
   */
  userNamespaces?: boolean;
}

/**
 * What an adapter that drives its CLI interactively gets (`drive`): the CLI's stdin and stdout, the job's events, and
 * its cancel. The process itself is engine-kit's as for every engine: started in the agent jail, timed, watched for
 * idleness, canceled and swept.
 */
export interface EngineDriveIO {
  /** The CLI's stdin. */
  stdin: NodeJS.WritableStream;
  /** The CLI's stdout as it comes, line by line (each with its newline); it closes when the process ends. */
  stdout: ReadableStream<Uint8Array>;
  /** Emits a job event (message, tool_call, file_change, skill_activated, status). */
  emit(event: EngineEvent): void;
  /**
   * The job was canceled: `handler` runs before the process is stopped (to tell the agent, as ACP's
   * `session/cancel`); engine-kit stops the process once `drive` settles or after a short grace.
   */
  onCancel(handler: () => void): void;
}

export interface StreamParser {
  /** One stdout line in, the events it means out. */
  stdoutLine(line: string): EngineEvent[];
  stderrLine?(line: string): EngineEvent[];
  /** The last complete assistant message. */
  finalMessage(): string | undefined;
  /**
   * The CLI's own usage report, in its terms (`ReportedUsage` says which parts it counts apart); engine-kit makes
   * it a usage record (`engineUsage`) and keeps it beside the metering proxy's figures.
   */
  usage(): (ReportedUsage & { totalTokens?: number }) | undefined;
  /** Error messages the CLI reported (in its stream or its stderr JSON), oldest first. */
  errors(): string[];
  /** Whether the stream said the turn completed successfully. */
  completed(): boolean;
  /**
   * A reason to stop the CLI now, when its stream shows it will never finish (a retry loop without network):
   * a message (the run is a `crash`), or a failure with its own kind (a key the API keeps rejecting is `auth`).
   */
  giveUp?(): string | EngineFailure | undefined;
}

/** core's `EngineFailure`: a kind and a message (and a hint when the engine knows one). */
export type { EngineFailure };

export interface EngineAdapter<O extends BaseEngineOptions = BaseEngineOptions> {
  /** The engine name a job names (`work.engine`). */
  engine: string;
  /** Shown in messages ("Gemini CLI"). */
  displayName: string;
  /** The context file the CLI reads from its working directory on start. */
  contextFileName: string;
  /** The engine's own option properties (JSON Schema), beside the shared ones. */
  optionProperties: Record<string, unknown>;
  /**
   * Whether the CLI needs an API key: `"api_key"` (the default) fails a job at once as `auth` when the key's
   * variable is not set (and no `mock_scenario` plays the model); `"none"` is for a CLI that needs no key (no
   * model at all, or a local one): its jobs are never asked for one, and a key is passed only when it is set.
   */
  auth?: "api_key" | "none";
  /** Variable the API key is read from when `api_key_env` is not set; required unless `auth` is `"none"`. */
  defaultApiKeyEnv?: string;
  /** The executable when `binary` is not set. */
  defaultBinary(): string;
  /** Version string from `<binary> --version` stdout. */
  parseVersion?(stdout: string): string | undefined;
  /**
   * The API the CLI talks to when no `base_url` is set (`https://api.anthropic.com`): the metering proxy forwards
   * there. Without it, a job with no `base_url` is not metered (its usage is the CLI's own report).
   */
  defaultBaseUrl?: string;
  /** The base URL the CLI needs for a mock-model server at `url`. */
  mockBaseUrl(url: string): string;
  /**
   * API dialects the `mock_scenario` server needs beside its built-in ones (Gemini, OpenAI Responses, Anthropic
   * Messages): an engine whose CLI speaks another API brings its own (`defineDialect` of @skillrig/mock-model).
   */
  mockDialects?: MockDialect[];
  /** Text added to the prompt (an output contract); none by default. */
  promptSuffix?(ctx: Omit<EngineRunContext<O>, "prompt">): string;
  /** Writes settings files into the isolated home and returns the command line and environment. */
  invocation(ctx: EngineRunContext<O>): Promise<EngineInvocation> | EngineInvocation;
  createParser(ctx: EngineRunContext<O>): StreamParser;
  /**
   * Why a run that exited on its own failed, or undefined when it succeeded. Timeouts, idle timeouts,
   * cancels and spawn failures are classified by engine-kit before this is asked.
   */
  classify(run: ProcessRunResult, parser: StreamParser, ctx: EngineRunContext<O>): EngineFailure | undefined;
  /** Adjusts the parsed final answer (deterministically); returns the repairs it made, if any. */
  finalizeOutput?(value: unknown, ctx: EngineRunContext<O>): string[];
  /**
   * Drives the CLI over its stdin/stdout (a protocol such as ACP's JSON-RPC) instead of only reading its stdout:
   * when set, stdin is a pipe and this runs from the start of the process; when it settles engine-kit closes stdin
   * and stops the process if it does not exit by itself. The parser it is given is the turn's (its final message,
   * errors and completion are what `judgeTurn` reads). A rejection is kept as the run's `driveError`.
   */
  drive?(io: EngineDriveIO, parser: StreamParser, ctx: EngineRunContext<O>): Promise<void>;
  /** The final answer text after a successful run: default the output file if written, else the last message. */
  finalAnswer?(parser: StreamParser, ctx: EngineRunContext<O>): string | undefined;
}
