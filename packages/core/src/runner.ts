/**
 * The Runner: the hook points (hooks.ts), the claims plugins make by tapping keyed hooks, the config, and the
 * sandboxes deliverable code runs in. One runner serves many runs; `close()` ends what lives across them.
 */
import { closestName } from "./closest-name.js";
import { SkillrigError } from "./errors.js";
import { type ClaimKind, createHooks, type RunnerHooks } from "./hooks.js";
import type { SkillrigPlugin } from "./plugin.js";
import type { Sandbox, SandboxRequest } from "./sandbox.js";
import type { SkillrigConfig } from "./config/define-config.js";

export type { ClaimKind, RunnerHooks } from "./hooks.js";

export interface Claim {
  kind: ClaimKind;
  name: string;
  plugin: string;
  /** Free-form facts for listings (`GET /v1/engines`): description, version ... */
  info?: Record<string, unknown>;
}

export interface RunnerOptions {
  /** Working directory that relative paths resolve against. */
  cwd?: string;
  /** The validated config (plugins read their sections from it). */
  config?: SkillrigConfig;
  /** Folder of the config file; config paths resolve against it. Defaults to cwd. */
  configDir?: string;
  /** The config file, for error messages. */
  configFile?: string;
}

const CLAIM_LABEL: Record<ClaimKind, string> = {
  deliverable: "deliverable type",
  engine: "engine",
  compare: "compare mode",
  reporter: "reporter",
  assertion: "assertion kind",
};

export class Runner {
  /** The hook points; tapping `task.execute`, `job.execute`, `task.compare` or `assertion` for a name claims that name. */
  readonly hooks: RunnerHooks = createHooks((kind, name, plugin) => this.claim(kind, name, plugin));
  readonly cwd: string;
  readonly config: SkillrigConfig;
  readonly configDir: string;
  readonly configFile?: string;
  readonly #plugins: SkillrigPlugin[] = [];
  readonly #claims = new Map<string, Claim>();
  #sandboxes = new Map<string, Sandbox>();
  #closing: Promise<void> | undefined;

  constructor(options: RunnerOptions = {}) {
    this.cwd = options.cwd ?? process.cwd();
    this.config = options.config ?? {};
    this.configDir = options.configDir ?? this.cwd;
    this.configFile = options.configFile;
  }

  /** Applies a plugin. Plugins are applied in config order. */
  use(plugin: SkillrigPlugin): this {
    plugin.apply(this);
    this.#plugins.push(plugin);
    return this;
  }

  get plugins(): readonly SkillrigPlugin[] {
    return this.#plugins;
  }

  /**
   * Claims a name for `plugin`. Tapping `task.execute.for(type)`, `job.execute.for(engine)` or
   * `task.compare.for(mode)` claims it already; call this to claim a reporter, or to attach `info` (a description
   * for listings such as `GET /v1/engines`). A second plugin claiming the same name is a `plugin_conflict` error
   * naming both, raised while the config is applied, before anything runs.
   */
  claim(kind: ClaimKind, name: string, plugin: string, info?: Record<string, unknown>): void {
    const key = `${kind}:${name}`;
    const existing = this.#claims.get(key);
    if (existing && existing.plugin !== plugin) {
      throw new SkillrigError(
        "plugin_conflict",
        `${CLAIM_LABEL[kind]} "${name}" is claimed by both plugin "${existing.plugin}" and plugin "${plugin}"; remove one of them from the config`,
        { field: "plugins", details: { kind, name, plugins: [existing.plugin, plugin] } },
      );
    }
    this.#claims.set(key, { kind, name, plugin, info: info ?? existing?.info });
  }

  /** The claims of one kind, in the order they were made. */
  claims(kind: ClaimKind): Claim[] {
    return [...this.#claims.values()].filter((c) => c.kind === kind);
  }

  /** The plugin that claimed `name`, if any. */
  claimant(kind: ClaimKind, name: string): Claim | undefined {
    return this.#claims.get(`${kind}:${name}`);
  }

  /** Throws a clear error when nothing claims `name`, listing what is available. */
  requireClaim(kind: ClaimKind, name: string, where?: { file?: string; pointer?: string; field?: string }): Claim {
    const claim = this.claimant(kind, name);
    if (claim) return claim;
    const names = this.claims(kind).map((c) => c.name);
    const available = names.map((n) => `"${n}"`);
    const near = closestName(name, names);
    const code = kind === "engine" ? "engine_not_found" : kind === "deliverable" ? "invalid_task" : "invalid_config";
    throw new SkillrigError(
      code,
      `no plugin handles ${CLAIM_LABEL[kind]} "${name}"` +
        (near !== undefined ? ` (did you mean "${near}"?)` : "") +
        (available.length > 0 ? `; available: ${available.join(", ")}` : `; no ${CLAIM_LABEL[kind]} plugins are configured`),
      {
        ...where,
        hint:
          near !== undefined
            ? `${CLAIM_LABEL[kind]} "${near}" is configured; or add a plugin for "${name}" to the "plugins" list of skillrig.config`
            : `add a plugin for ${CLAIM_LABEL[kind]} "${name}" to the "plugins" list of skillrig.config`,
      },
    );
  }

  /**
   * Ends the runner's life: fires `hooks.close` once, so plugins stop what they kept across runs (the function
   * plugin's warm runtime). Every owner of a runner calls it when done; a second call waits for the first.
   */
  close(): Promise<void> {
    this.#closing ??= this.hooks.close.promise();
    return this.#closing;
  }

  /** The sandbox for a purpose, from the `sandbox` hook; the same instance is reused for the runner's life. */
  sandbox(request: SandboxRequest): Sandbox {
    const key = `${request.purpose}:${request.profile ?? "deliverable"}:${request.allowWeaker ? 1 : 0}`;
    let sandbox = this.#sandboxes.get(key);
    if (!sandbox) {
      sandbox = this.hooks.sandbox.call(request);
      if (!sandbox) {
        throw new SkillrigError("sandbox_unavailable", `no sandbox plugin is configured to run ${request.purpose} code`, {
          hint: "add @skillrig/sandbox (included by default) or your own sandbox plugin to the config",
        });
      }
      this.#sandboxes.set(key, sandbox);
    }
    return sandbox;
  }
}
