/**
 * `config.server`, normalised once at the edge (defaults filled, paths absolute, the exposure rule checked),
 * then trusted inside the server.
 */
import { resolve } from "node:path";
import { SkillrigError, type SkillrigConfig } from "@skillrig/core";
import type { TokenSource } from "./config-section.js";
import { DEFAULT_UPLOAD_BYTES_PER_DAY, resolveServerBounds, type ServerBounds } from "./server-bounds.js";

/** A team sharing the server: its tokens (read at start), whether it sees every tenant's jobs, and its limits. */
export interface TenantSettings {
  name: string;
  tokens: string[];
  admin: boolean;
  limits: TenantLimits;
}

export interface TenantLimits {
  /** Jobs waiting to run (waiting_upload + queued). */
  queueLimit?: number;
  waitingUploadLimit?: number;
  /** Jobs running at once (the scheduler's bound, not an HTTP error). */
  runningLimit?: number;
  uploadBytesPerDay?: number;
  /** The tenant's daily model budget (tenant-usage.ts). */
  costUsdPerDay?: number;
  tokensPerDay?: number;
}

/** The tenant of `server.tokens`, of jobs stored before tenants existed, and of every request on a server without tokens. */
export const DEFAULT_TENANT = "default";

export interface ServerSettings {
  host: string;
  port: number;
  /** Every bearer token of every tenant; empty means no authentication (allowed on loopback only). */
  tokens: string[];
  /** The tenants, each with its tokens; always holds `default` (with no tokens when only `server.tenants` has any). */
  tenants: TenantSettings[];
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
  /** all: HTTP API and job workers in this process; api: HTTP only; worker: runs jobs only (api and worker need redis). */
  role: ServerRole;
  /** Where jobs, events and the queue live. */
  queue: QueueSettings;
  /** Largest JSON request body. */
  jsonBodyLimitBytes: number;
  /** Deepest nesting of objects/arrays in a JSON body (the body itself is level 1), checked on the raw text first. */
  jsonMaxDepth: number;
  /** Most test cases a task sent to the server may have. */
  taskMaxCases: number;
  /** Bounds on what one tenant's jobs may hold of the server's shared resources (issue 38; server-bounds.ts). */
  bounds: ServerBounds;
}

export type ServerRole = "all" | "api" | "worker";

export type QueueSettings =
  | { backend: "sqlite" }
  | {
      backend: "redis";
      url: string;
      /** Key prefix, so several servers can share one Redis. */
      prefix: string;
      /** A worker's lock on a running job lasts this long without renewal (BullMQ lockDuration). */
      lockMs: number;
      /** How often workers look for jobs whose lock lapsed (BullMQ stalledInterval). */
      stalledCheckMs: number;
      rateLimit?: { max: number; duration_ms: number };
    };

export const REDIS_QUEUE_DEFAULTS = { prefix: "skillrig", lockMs: 10_000, stalledCheckMs: 5_000 } as const;

export type ServerOverrides = Partial<
  Pick<ServerSettings, "host" | "port" | "concurrency" | "dataDir" | "queueLimit" | "onRestart" | "role">
>;

export const SERVER_DEFAULTS = {
  host: "127.0.0.1",
  port: 8765,
  concurrency: 2,
  queueLimit: 1000,
  dataDir: ".skillrig/server",
  onRestart: "fail",
  uploadLimitBytes: 100 * 1024 * 1024,
  uploadMaxFiles: 1000,
  uploadMaxExtractedBytes: 256 * 1024 * 1024,
  uploadWaitMs: 10 * 60 * 1000,
  clientEngineOptions: ["model", "timeout_ms", "idle_timeout_ms"],
  jsonBodyLimitBytes: 10 * 1024 * 1024,
  jsonMaxDepth: 160,
  taskMaxCases: 10_000,
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
  const tenants = tenantSettings(server, configFile);
  const settings: ServerSettings = {
    host: overrides.host ?? server.host ?? SERVER_DEFAULTS.host,
    port: overrides.port ?? server.port ?? SERVER_DEFAULTS.port,
    tokens: tenants.flatMap((t) => t.tokens),
    tenants,
    concurrency: overrides.concurrency ?? server.concurrency ?? SERVER_DEFAULTS.concurrency,
    queueLimit: overrides.queueLimit ?? server.queue_limit ?? SERVER_DEFAULTS.queueLimit,
    dataDir: overrides.dataDir ? resolve(overrides.dataDir) : resolve(configDir, server.data_dir ?? SERVER_DEFAULTS.dataDir),
    onRestart: overrides.onRestart ?? server.on_restart ?? SERVER_DEFAULTS.onRestart,
    uploadLimitBytes: server.upload_limit_bytes ?? SERVER_DEFAULTS.uploadLimitBytes,
    uploadMaxFiles: server.upload_max_files ?? SERVER_DEFAULTS.uploadMaxFiles,
    uploadMaxExtractedBytes: server.upload_max_extracted_bytes ?? SERVER_DEFAULTS.uploadMaxExtractedBytes,
    uploadWaitMs: server.upload_wait_ms ?? SERVER_DEFAULTS.uploadWaitMs,
    clientEngineOptions: server.client_engine_options ?? [...SERVER_DEFAULTS.clientEngineOptions],
    role: overrides.role ?? server.role ?? "all",
    queue: queueSettings(server.queue),
    jsonBodyLimitBytes: server.json_body_limit_bytes ?? SERVER_DEFAULTS.jsonBodyLimitBytes,
    jsonMaxDepth: server.json_max_depth ?? SERVER_DEFAULTS.jsonMaxDepth,
    taskMaxCases: server.task_max_cases ?? SERVER_DEFAULTS.taskMaxCases,
    bounds: resolveServerBounds(server, tenants),
  };
  if (settings.role !== "all" && settings.queue.backend !== "redis") {
    throw new SkillrigError(
      "invalid_config",
      `role "${settings.role}" splits the server across processes, which needs a shared queue; the sqlite backend runs in one process`,
      {
        file: configFile,
        pointer: "/server/queue",
        field: "server.queue",
        hint: 'set server.queue to { "backend": "redis", "url": "redis://host:6379" }, or serve with --role all',
      },
    );
  }
  if (!isLoopbackHost(settings.host) && settings.tokens.length === 0) {
    throw new SkillrigError(
      "invalid_config",
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
    throw new SkillrigError("invalid_config", `port ${settings.port} is not a TCP port (0-65535)`, { field: "server.port" });
  }
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1) {
    throw new SkillrigError("invalid_config", `concurrency ${settings.concurrency} must be a whole number of at least 1`, {
      field: "server.concurrency",
    });
  }
  return settings;
}

/**
 * `server.tokens` (the tenant `default`) and `server.tenants`, tokens read from the environment where the config
 * says `{ "env": "NAME" }`. A missing variable, a short token or one token in two tenants is a config error naming
 * its pointer.
 */
function tenantSettings(server: NonNullable<SkillrigConfig["server"]>, configFile: string | undefined): TenantSettings[] {
  const owner = new Map<string, string>();
  const read = (sources: TokenSource[], pointer: string, tenant: string): string[] =>
    sources.map((source, i) => {
      const at = `${pointer}/${i}`;
      const token = typeof source === "string" ? source : process.env[source.env];
      if (token === undefined || token === "") {
        const name = (source as { env: string }).env;
        throw new SkillrigError("invalid_config", `the environment variable ${name} (the token at ${at}) is not set`, {
          file: configFile,
          pointer: at,
          field: "server.tenants",
          hint: `set ${name} to the tenant's token (16+ characters) before starting the server`,
        });
      }
      if (token.length < 16) {
        throw new SkillrigError("invalid_config", `the token at ${at} is shorter than 16 characters`, {
          file: configFile,
          pointer: at,
          field: "server.tenants",
        });
      }
      const other = owner.get(token);
      if (other !== undefined && other !== tenant) {
        throw new SkillrigError(
          "invalid_config",
          `the token at ${at} is also a token of tenant "${other}"; a token belongs to one tenant`,
          {
            file: configFile,
            pointer: at,
            field: "server.tenants",
          },
        );
      }
      owner.set(token, tenant);
      return token;
    });
  const configured = server.tenants ?? {};
  const out: TenantSettings[] = [];
  const defaultTokens = read(server.tokens ?? [], "/server/tokens", DEFAULT_TENANT);
  if (!(DEFAULT_TENANT in configured))
    out.push({ name: DEFAULT_TENANT, tokens: defaultTokens, admin: false, limits: { uploadBytesPerDay: DEFAULT_UPLOAD_BYTES_PER_DAY } });
  for (const [name, tenant] of Object.entries(configured)) {
    const tokens = read(tenant.tokens, `/server/tenants/${name}/tokens`, name);
    out.push({
      name,
      tokens: name === DEFAULT_TENANT ? [...defaultTokens, ...tokens] : tokens,
      admin: tenant.role === "admin",
      limits: {
        queueLimit: tenant.queue_limit,
        waitingUploadLimit: tenant.waiting_upload_limit,
        runningLimit: tenant.running_limit,
        uploadBytesPerDay: tenant.upload_bytes_per_day ?? DEFAULT_UPLOAD_BYTES_PER_DAY,
        costUsdPerDay: tenant.max_cost_usd_per_day,
        tokensPerDay: tenant.max_tokens_per_day,
      },
    });
  }
  return out;
}

function queueSettings(queue: NonNullable<SkillrigConfig["server"]>["queue"]): QueueSettings {
  if (!queue || queue.backend === "sqlite") return { backend: "sqlite" };
  return {
    backend: "redis",
    url: queue.url,
    prefix: queue.prefix ?? REDIS_QUEUE_DEFAULTS.prefix,
    lockMs: queue.lock_ms ?? REDIS_QUEUE_DEFAULTS.lockMs,
    stalledCheckMs: queue.stalled_check_ms ?? REDIS_QUEUE_DEFAULTS.stalledCheckMs,
    rateLimit: queue.rate_limit,
  };
}
