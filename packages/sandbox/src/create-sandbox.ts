/**
 * createSandbox: picks the strongest isolation level this machine supports (probed once), or the one
 * the config names, and says so in `warnings` whenever it had to settle for less.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type {
  IsolationLevel,
  SampleUidLease,
  SampleUidSupport,
  Sandbox,
  SandboxLimitsConfig,
  SandboxProcess,
  SandboxResult,
  SandboxSpawnOptions,
} from "@skillrig/core";
import { resolveCaseLimits, SkillrigError } from "@skillrig/core";
import { createSampleHost } from "./sample-host/sample-host.js";
import { confineAgent } from "./agent-profile.js";
import { type HostProbe, probeHost } from "./host-probe.js";
import { closedToOthers } from "./folder-access.js";
import { type LevelName, planLaunch, programNeeds } from "./launch-plan.js";
import { effectiveLimits } from "./limits.js";
import { defaultTreeMemoryCeiling } from "./memory-watchdog.js";
import { startSandboxedProcess } from "./sandboxed-process.js";
import { sweepProcessesOfUid } from "./process-tree.js";
import { releaseSlotUid, takeSlotUid } from "./slot-uids.js";

/** Strongest first. */
export const ISOLATION_LEVELS: readonly LevelName[] = ["namespaces", "rlimits", "none"];

export interface SandboxOptions {
  /** "auto" (default) takes the strongest level available; a named level is used as asked, or refused. */
  level?: "auto" | LevelName;
  /** Refuse to fall back to a weaker level than the strongest one skillrig has ("namespaces"). */
  requireStrongest?: boolean;
  /** Defaults for limits a caller leaves out (the config's `sandbox.limits`); core's defaults after that. */
  limits?: SandboxLimitsConfig;
  /**
   * The most memory one run's whole process tree may hold (the sum of its processes' PSS) at the namespaces
   * level. A watchdog enforces it whenever maxProcesses x memoryBytes could pass it. Default: half the RAM.
   */
  treeMemoryBytes?: number;
  /** Re-probe the machine instead of reusing this process's probe. */
  fresh?: boolean;
  /** What the machine offers, when the caller probed it already (or wants to plan for another machine). */
  host?: HostProbe;
}

export interface LevelAvailability {
  level: LevelName;
  available: boolean;
  /** Why not, when not. */
  reason?: string;
}

/** Which levels this machine can give, strongest first, with the reason for each one that it cannot. */
export function availableLevels(host: HostProbe = probeHost()): LevelAvailability[] {
  return [
    host.namespacesWork
      ? { level: "namespaces", available: true }
      : { level: "namespaces", available: false, reason: host.namespacesError ?? "bubblewrap is not usable" },
    host.prlimit
      ? { level: "rlimits", available: true }
      : { level: "rlimits", available: false, reason: "prlimit (util-linux) is not installed" },
    { level: "none", available: true },
  ];
}

/**
 * As root, code runs as a per-run uid at every level; without a mount namespace (rlimits, none) that uid reaches
 * its program through the host's own tree. A program it cannot reach (a pyenv python3 under /root, mode 0700) is
 * refused by name: the run never falls back to root.
 */
function refuseUnreachableProgram(level: LevelName, options: SandboxSpawnOptions, host: HostProbe): void {
  // A program inside the case folder or a read-only folder is made reachable (or refused) by makeReachable.
  const ownFolders = [options.cwd, ...(options.readOnlyPaths ?? [])].map((p) => resolve(p));
  for (const { path, need } of programNeeds(options.command, host, options.cwd)) {
    if (ownFolders.some((folder) => path === folder || path.startsWith(`${folder}/`))) continue;
    const closed = closedToOthers(path, need);
    if (!closed) continue;
    const what = need === "run" ? `run ${path}` : `read ${path}`;
    const python = host.python && (path === host.python.executable || host.python.prefixes.includes(path));
    throw new SkillrigError(
      "sandbox_unavailable",
      `sandbox: at level "${level}" deliverable code runs as an unprivileged per-run uid (never as root), which cannot ${what}: ${closed.blocker} is mode ${closed.mode.toString(8).padStart(4, "0")}, owned by uid ${closed.owner}, and not open to others (o+${closed.lacks})`,
      {
        file: closed.blocker,
        field: "sandbox.level",
        hint: python
          ? `use level "namespaces" (it binds the interpreter in), or put a python3 other users can run first on PATH (for example PATH=/usr/bin:$PATH for /usr/bin/python3)`
          : `use level "namespaces", or open ${closed.blocker} to others (chmod o+${closed.lacks})`,
      },
    );
  }
}

/** The case folder must exist before code runs in it: it becomes the only writable bind. */
function requireCaseFolder(cwd: string): void {
  let problem: string | undefined;
  try {
    if (!statSync(cwd).isDirectory()) problem = "is not a folder";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem = code === "ENOENT" ? "does not exist" : `cannot be reached (${code ?? (error as Error).message})`;
  }
  if (problem) {
    throw new SkillrigError("sandbox_unavailable", `sandbox: the case folder ${cwd} ${problem}; create it before running code in it`, {
      file: cwd,
    });
  }
}

function leaseSampleUid(): SampleUidLease | undefined {
  const uid = takeSlotUid();
  if (uid === undefined) return undefined;
  let released = false;
  return {
    uid,
    release(options) {
      if (released) return;
      released = true;
      // A sample's daemon that outlived its pair must not meet the uid's next holder (the host's own sweep saw to
      // that already when it confirmed the end of every process of the uid).
      if (options?.hostSwept !== true) sweepProcessesOfUid(uid);
      releaseSlotUid(uid);
    },
  };
}

/** The level this sandbox runs code at, and the warnings it gives for settling for less. */
interface ChosenLevel {
  level: LevelName;
  warnings: string[];
}

/** "auto": the strongest level available, with a warning (or a refusal, under requireStrongest) when that is not "namespaces". */
function strongestAvailable(levels: LevelAvailability[], options: SandboxOptions): ChosenLevel {
  const chosen = levels.find((l) => l.available) as LevelAvailability;
  const level = chosen.level;
  const strongest = levels[0] as LevelAvailability;
  if (strongest.available) return { level, warnings: [] };
  const message = `sandbox: the strongest isolation level "namespaces" is not available (${strongest.reason}); deliverable code runs at level "${level}", which does not ${level === "rlimits" ? "block the network or writes outside the case folder" : "limit resources, network or file writes"}`;
  if (options.requireStrongest) {
    throw new SkillrigError("sandbox_unavailable", message, {
      field: "sandbox.require_strongest",
      hint: "install bubblewrap (`bash scripts/setup-system.sh`) and allow unprivileged user namespaces, or set sandbox.require_strongest to false",
    });
  }
  return { level, warnings: [message] };
}

/** A level named in the config: used as asked, or refused when it is not a level, not available, or not the strongest one required. */
function namedLevel(requested: string, levels: LevelAvailability[], options: SandboxOptions): ChosenLevel {
  const wanted = levels.find((l) => l.level === requested);
  if (!wanted) {
    throw new SkillrigError(
      "invalid_config",
      `sandbox.level "${requested}" is not a level; use one of "auto", ${ISOLATION_LEVELS.map((l) => `"${l}"`).join(", ")}`,
      {
        field: "sandbox.level",
      },
    );
  }
  if (!wanted.available) {
    throw new SkillrigError("sandbox_unavailable", `sandbox.level "${requested}" is not available on this machine: ${wanted.reason}`, {
      field: "sandbox.level",
      hint: 'set sandbox.level to "auto" to take the strongest level available',
    });
  }
  if (options.requireStrongest && requested !== "namespaces") {
    throw new SkillrigError("invalid_config", `sandbox.level "${requested}" contradicts sandbox.require_strongest`, {
      field: "sandbox.level",
    });
  }
  const level = wanted.level;
  return {
    level,
    warnings: level !== "namespaces" ? [`sandbox: level "${level}" was chosen in the config; it is weaker than "namespaces"`] : [],
  };
}

/** Below "namespaces", code that is not dropped to a per-run uid runs as this very user: say what that exposes. */
function runsAsThisUserWarning(host: HostProbe, level: LevelName): string[] {
  if (host.isRoot || level === "namespaces") return [];
  return [
    `sandbox: at level "${level}" deliverable code runs as this user (uid ${process.getuid?.() ?? "?"}): it can read and change anything this user can, skillrig's own caches and installation included; grade code you would not run yourself only at level "namespaces"`,
  ];
}

/** What every start in one sandbox shares: the machine, the level chosen, and the sandbox's options. */
interface SandboxSetting {
  host: HostProbe;
  level: LevelName;
  options: SandboxOptions;
}

/** As root below "namespaces" the code is dropped to a per-run uid by setpriv, which must reach its program. */
function refuseRootWithoutDrop({ host, level }: SandboxSetting, spawnOptions: SandboxSpawnOptions): void {
  if (!host.isRoot || level === "namespaces") return;
  if (!host.setpriv) {
    throw new SkillrigError(
      "sandbox_unavailable",
      `sandbox: at level "${level}" as root, setpriv (util-linux) is needed to run deliverable code as an unprivileged per-run uid, and it is missing; the code is never run as root`,
      { field: "sandbox.level", hint: 'install util-linux, or use level "namespaces"' },
    );
  }
  refuseUnreachableProgram(level, spawnOptions, host);
}

/** The per-run uid a run as root takes (none otherwise); refused when the whole range is held. */
function takeRunUid({ host }: SandboxSetting): number | undefined {
  // As root, code runs under a per-run uid at every level (see launch-plan.ts); never as root.
  if (!host.isRoot) return undefined;
  const slotUid = takeSlotUid();
  if (slotUid === undefined) {
    throw new SkillrigError(
      "sandbox_unavailable",
      "sandbox: every per-run uid of this machine's range is held by a run; lower the number of parallel jobs",
    );
  }
  return slotUid;
}

/** Starts one run (`run`: captured; `spawn`: piped to the caller) and gives its uid back when it has exited. */
function startRun(setting: SandboxSetting, spawnOptions: SandboxSpawnOptions, mode: "run" | "spawn", keepUidSwitch = false) {
  const { host, level, options } = setting;
  requireCaseFolder(spawnOptions.cwd);
  refuseRootWithoutDrop(setting, spawnOptions);
  const slotUid = takeRunUid(setting);
  const limits = effectiveLimits(spawnOptions.limits, options.limits);
  const plan = planLaunch(level, {
    options: spawnOptions,
    limits,
    host,
    slotUid,
    keepUidSwitch,
  });
  const started = startSandboxedProcess({
    plan,
    command: spawnOptions.command,
    cwd: spawnOptions.cwd,
    limits,
    stdin: spawnOptions.stdin,
    signal: spawnOptions.signal,
    mode,
    capSpawnOutput: mode === "spawn" && spawnOptions.limits.outputBytes !== undefined,
    treeMemoryCeiling: options.treeMemoryBytes ?? defaultTreeMemoryCeiling(),
  });
  const exited = started.exited.finally(() => {
    if (slotUid === undefined) return;
    // Without a pid namespace a process could outlive the run; nothing of it may meet the uid's next run.
    if (level !== "namespaces") sweepProcessesOfUid(slotUid);
    releaseSlotUid(slotUid);
  });
  return { ...started, exited };
}

function spawnIn(setting: SandboxSetting, spawnOptions: Omit<SandboxSpawnOptions, "stdin">, keepUidSwitch = false): SandboxProcess {
  const started = startRun(setting, spawnOptions, "spawn", keepUidSwitch);
  return {
    stdin: started.stdin,
    stdout: started.stdout,
    stderr: started.stderr,
    pid: started.pid,
    isolation: setting.level,
    kill: started.kill,
    exited: started.exited,
  };
}

/**
 * Samples can be told apart by uid only where the code runs as a per-run host uid: root at level namespaces.
 * There, one shared host serves every sample; elsewhere each sample gets a host of its own.
 */
function sampleUidSupport(setting: SandboxSetting): SampleUidSupport | undefined {
  const { host, level } = setting;
  if (!host.isRoot || level !== "namespaces") return undefined;
  return {
    spawnSampleHost: (spawnOptions) => spawnIn(setting, spawnOptions, true),
    leaseSampleUid,
    ...(host.python ? { pythonExecutable: host.python.executable } : {}),
  };
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const host = options.host ?? probeHost(options.fresh);
  const levels = availableLevels(host);
  const requested = options.level ?? "auto";
  const chosen = requested === "auto" ? strongestAvailable(levels, options) : namedLevel(requested, levels, options);
  const level = chosen.level;
  const warnings = [...chosen.warnings, ...runsAsThisUserWarning(host, level)];
  const setting: SandboxSetting = { host, level, options };
  const isolation: IsolationLevel = level;
  const sampleUids = sampleUidSupport(setting);

  const caseDefaults = resolveCaseLimits({}, undefined, { limits: options.limits });
  const sandbox: Sandbox = {
    name: "@skillrig/sandbox",
    isolation,
    warnings,
    levelNamed: requested !== "auto",
    ...(sampleUids ? { sampleUids } : {}),
    async run(spawnOptions: SandboxSpawnOptions): Promise<SandboxResult> {
      return startRun(setting, spawnOptions, "run").exited;
    },
    spawn: (spawnOptions) => spawnIn(setting, spawnOptions),
    openSample: (sampleOptions) => sampleHost.openSample(sampleOptions),
    close: () => sampleHost.close(),
    // The agent profile (agent-profile.ts): the jail when bubblewrap works here. A weaker level named in the config
    // runs engines unconfined too; a weaker level the machine forced is the jail's own decision (refused as root).
    confineAgent: (request) => confineAgent(request, { host, level: level === "namespaces" || requested === "auto" ? "auto" : "none" }),
  };
  const sampleHost = createSampleHost(sandbox, { fileSizeBytes: caseDefaults.fileSizeBytes, diskBytes: caseDefaults.diskBytes });
  return sandbox;
}
