/**
 * `config.server`, normalised once at the edge (defaults filled, paths absolute, the exposure rule checked),
 * then trusted inside the server.
 */
import { resolve } from "node:path";
import { InvalidConfigError, type SkillrigConfig } from "@skillrig/core";

export interface ServerSettings {
  host: string;
  port: number;
  /** Bearer tokens; empty means no authentication (allowed on loopback only). */
  tokens: string[];
  /** Jobs run at once. */
  concurrency: number;
  /** Jobs that may wait (waiting_upload + queued) before POST answers 429. */
  queueLimit: number;
  /** Holds the SQLite file, staged uploads and run folders. */
  dataDir: string;
  onRestart: "fail" | "requeue";
  /** Largest upload body. */
  uploadLimitBytes: number;
  uploadMaxFiles: number;
  /** Most bytes one zip may extract to. */
  uploadMaxExtractedBytes: number;
  /** A job waiting longer than this for its upload is canceled (reason `upload_timeout`). */
  uploadWaitMs: number;
  /** Engine options a client may set per job; the rest (binary, env, extra_args ...) only the config sets. */
  clientEngineOptions: string[];
}

export type ServerOverrides = Partial<Pick<ServerSettings, "host" | "port" | "concurrency" | "dataDir" | "queueLimit" | "onRestart">>;

export const SERVER_DEFAULTS = {
  host: "127.0.0.1",
  port: 8765,
  concurrency: 2,
  queueLimit: 1000,
  dataDir: ".skillrig/server",
  onRestart: "fail",
  uploadLimitBytes: 100 * 1024 * 1024,
  uploadMaxFiles: 1000,
  uploadMaxExtractedBytes: 1024 * 1024 * 1024,
  uploadWaitMs: 24 * 60 * 60 * 1000,
  clientEngineOptions: ["model", "timeout_ms", "idle_timeout_ms"],
} as const;

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Reads `config.server` (relative paths against `configDir`) with command-line overrides on top. */
export function resolveServerSettings(
  config: SkillrigConfig,
  configDir: string,
  overrides: ServerOverrides = {},
  configFile?: string,
): ServerSettings {
  const server = config.server ?? {};
  const settings: ServerSettings = {
    host: overrides.host ?? server.host ?? SERVER_DEFAULTS.host,
    port: overrides.port ?? server.port ?? SERVER_DEFAULTS.port,
    tokens: server.tokens ?? [],
    concurrency: overrides.concurrency ?? server.concurrency ?? SERVER_DEFAULTS.concurrency,
    queueLimit: overrides.queueLimit ?? server.queue_limit ?? SERVER_DEFAULTS.queueLimit,
    dataDir: overrides.dataDir ? resolve(overrides.dataDir) : resolve(configDir, server.data_dir ?? SERVER_DEFAULTS.dataDir),
    onRestart: overrides.onRestart ?? server.on_restart ?? SERVER_DEFAULTS.onRestart,
    uploadLimitBytes: server.upload_limit_bytes ?? SERVER_DEFAULTS.uploadLimitBytes,
    uploadMaxFiles: server.upload_max_files ?? SERVER_DEFAULTS.uploadMaxFiles,
    uploadMaxExtractedBytes: server.upload_max_extracted_bytes ?? SERVER_DEFAULTS.uploadMaxExtractedBytes,
    uploadWaitMs: server.upload_wait_ms ?? SERVER_DEFAULTS.uploadWaitMs,
    clientEngineOptions: server.client_engine_options ?? [...SERVER_DEFAULTS.clientEngineOptions],
  };
  if (!isLoopbackHost(settings.host) && settings.tokens.length === 0) {
    throw new InvalidConfigError(
      `the server would listen on ${settings.host}, which is reachable from other machines, without bearer tokens`,
      {
        file: configFile,
        pointer: "/server/tokens",
        field: "server.tokens",
        hint: "add at least one token (16+ characters) to server.tokens, or bind to 127.0.0.1",
      },
    );
  }
  if (!Number.isInteger(settings.port) || settings.port < 0 || settings.port > 65535) {
    throw new InvalidConfigError(`port ${settings.port} is not a TCP port (0-65535)`, { field: "server.port" });
  }
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1) {
    throw new InvalidConfigError(`concurrency ${settings.concurrency} must be a whole number of at least 1`, {
      field: "server.concurrency",
    });
  }
  return settings;
}
