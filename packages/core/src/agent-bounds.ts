/**
 * The bounds on an agent (an engine CLI and every tool command it runs), from the config's `sandbox.agent`, each
 * with a default a shared jobs server can live with. Part of the sandbox contract, so both sides read them from
 * here: the jail enforces processes, `/tmp` and the file size (a sandbox plugin's agent profile); engine-kit
 * enforces the output bounds and the writable folders' total (it reads the CLI's output and knows the run's
 * folders). The section's schema is the sandbox package's (`sandbox.agent`).
 */
/** `sandbox.agent` as written in the config. */
export interface AgentBoundsConfig {
  /** The longest line the engine may print (bytes). */
  line_bytes?: number;
  /** All the engine may print (stdout and stderr) and what is kept of it (its logs and event log), in bytes. */
  output_bytes?: number;
  /** Events one engine run may emit (messages, tool calls, ...). */
  events?: number;
  /** Processes (threads included) the agent's uid may have at once. */
  processes?: number;
  /** Size of the jail's private `/tmp` (a tmpfs: it is memory). */
  tmp_bytes?: number;
  /** The largest file the agent may write (RLIMIT_FSIZE). */
  file_bytes?: number;
  /** All the agent may keep in its writable folders (the workspace, its HOME and TMPDIR) together. */
  workspace_bytes?: number;
}

/** The bounds with every default filled in. */
export interface AgentBounds {
  lineBytes: number;
  outputBytes: number;
  events: number;
  processes: number;
  tmpBytes: number;
  fileBytes: number;
  workspaceBytes: number;
}

const MiB = 1024 * 1024;

/** The defaults (docs/sandbox.md, "Bounds on untrusted producers"). */
export const DEFAULT_AGENT_BOUNDS: Readonly<AgentBounds> = Object.freeze({
  // A stream-json line carries one event (a tool's output with it): megabytes at most in real runs.
  lineBytes: 8 * MiB,
  // A long real run prints a few MiB; 64 keeps a run folder and the runner's memory small on a shared server.
  outputBytes: 64 * MiB,
  events: 100_000,
  // node (about a dozen threads) for the relay and the CLI, plus a build's worth of tool processes.
  processes: 512,
  tmpBytes: 256 * MiB,
  fileBytes: 512 * MiB,
  // A workspace with an npm or pip install in it fits; a filler is stopped long before the host disk is.
  workspaceBytes: 2048 * MiB,
});

/** The config key of each bound, for messages. */
export const AGENT_BOUND_KEYS: Readonly<Record<keyof AgentBounds, string>> = Object.freeze({
  lineBytes: "sandbox.agent.line_bytes",
  outputBytes: "sandbox.agent.output_bytes",
  events: "sandbox.agent.events",
  processes: "sandbox.agent.processes",
  tmpBytes: "sandbox.agent.tmp_bytes",
  fileBytes: "sandbox.agent.file_bytes",
  workspaceBytes: "sandbox.agent.workspace_bytes",
});

export function agentBounds(config: AgentBoundsConfig = {}): AgentBounds {
  const d = DEFAULT_AGENT_BOUNDS;
  return {
    lineBytes: config.line_bytes ?? d.lineBytes,
    outputBytes: config.output_bytes ?? d.outputBytes,
    events: config.events ?? d.events,
    processes: config.processes ?? d.processes,
    tmpBytes: config.tmp_bytes ?? d.tmpBytes,
    fileBytes: config.file_bytes ?? d.fileBytes,
    workspaceBytes: config.workspace_bytes ?? d.workspaceBytes,
  };
}
