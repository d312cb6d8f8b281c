/**
 * The sandbox contract. Every process that runs deliverable code goes through a Sandbox,
 * chosen by the runner's `sandbox` hook, so a team can swap in its own (a container runner, say).
 */
import type { Readable, Writable } from "node:stream";

/** Isolation levels, strongest first. The report records which one each run had. */
export type IsolationLevel = "namespaces" | "rlimits" | "none" | (string & {});

export interface ResourceLimits {
  /**
   * Wall-clock limit; the whole process tree is killed when it passes (`timedOut`). For a case this is the backstop
   * of its time limit (`timeBackstopMs`): the time limit itself counts CPU time, `cpuTreeMs`.
   */
  wallMs: number;
  /** CPU time of each process (`RLIMIT_CPU`, enforced by the kernel); past it the process gets `SIGXCPU` (`cpuLimited`). */
  cpuMs?: number;
  /**
   * CPU time of the whole tree: every process the command starts, together (threads included, detached ones where
   * the level can find them). Past it the tree is killed (`cpuLimited`). A case's time limit: its verdict then counts
   * its own CPU, never the machine's load. Sampled, so a tree may pass it by what it burns between two samples.
   */
  cpuTreeMs?: number;
  memoryBytes?: number;
  maxProcesses?: number;
  /** Bytes kept of stdout and of stderr each; more ends the run with `outputLimited`. */
  outputBytes?: number;
  fileSizeBytes?: number;
  /**
   * Bytes (allocated blocks) and entries the code may have in its working folder (`cwd`), all files together;
   * past either, the tree is killed (`diskLimited`). Sampled, like `cpuTreeMs`.
   */
  diskBytes?: number;
}

export interface SandboxSpawnOptions {
  /** Program and arguments, e.g. ["python3", "tool.py", "--in", "a.csv"]. */
  command: string[];
  /** The only folder the code may write to; also its working directory. */
  cwd: string;
  /** Folders the code may read (the deliverable's folder, harness files). */
  readOnlyPaths?: string[];
  /** Variables added to the sandbox's scrubbed environment allow-list. */
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  limits: ResourceLimits;
  /** Aborting kills the whole process tree. */
  signal?: AbortSignal;
}

export interface SandboxResult {
  command: string[];
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** stdout or stderr passed `outputBytes`. */
  outputLimited: boolean;
  /** The memory limit was hit (best evidence: MemoryError, ENOMEM, or SIGKILL from the limit). */
  memoryLimited: boolean;
  cpuLimited: boolean;
  fileSizeLimited: boolean;
  /** The working folder passed `diskBytes` (or its entry cap); absent from sandboxes that do not watch it. */
  diskLimited?: boolean;
  isolation: IsolationLevel;
}

/** A long-lived sandboxed process with open pipes (the function harness speaks a protocol over them). */
export interface SandboxProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly pid: number | undefined;
  readonly isolation: IsolationLevel;
  /** Kills the whole process tree. */
  kill(): void;
  /** Settles when the process has exited and its tree is gone. */
  readonly exited: Promise<SandboxResult>;
}

export interface Sandbox {
  readonly name: string;
  /** The isolation level this sandbox gives on this machine (probed once). */
  readonly isolation: IsolationLevel;
  /** Warnings from probing (a fallback to a weaker level is always reported here). */
  readonly warnings: string[];
  /**
   * True when the user named this level (config `sandbox.level`, `--sandbox-level`, a plugin option) rather than
   * letting the sandbox choose. The oracle grades at a level that cannot hide task files ("rlimits", "none") only then.
   */
  readonly levelNamed?: boolean;
  run(options: SandboxSpawnOptions): Promise<SandboxResult>;
  spawn(options: Omit<SandboxSpawnOptions, "stdin">): SandboxProcess;
  /** The agent profile: wraps an engine's command line in the agent jail (a sandbox asked with `profile: "agent"`). */
  confineAgent?(request: AgentJailRequest): Promise<ConfinedCommand>;
}

/** What an engine run needs from the agent jail. */
export interface AgentJailRequest {
  /** The engine's executable and arguments. */
  command: string[];
  /** The run's workspace: the engine's working directory, writable. */
  workspace: string;
  /** Other folders the engine writes (its per-job HOME and TMPDIR). */
  writable?: string[];
  /** Extra folders it reads (a skill's Python environment). */
  readOnly?: string[];
  /** The engine's complete environment. */
  env: Record<string, string>;
  /** The model API base URL; the only destination the engine's network reaches. Unset: no network at all. */
  modelBaseUrl?: string;
  /**
   * The engine sandboxes its own tool commands with user namespaces (codex's bubblewrap): let the agent create them.
   * Every other rule of the jail stays. Default false: a new user namespace is refused.
   */
  userNamespaces?: boolean;
}

/** The engine's command line as the jail runs it. */
export interface ConfinedCommand extends AgentConfinement {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Why the engine runs weaker than the agent profile, when it does. */
  warnings: string[];
  /** Stops the egress relay and removes the jail's scratch files; call after the engine ended. */
  close(): Promise<void>;
}

/** What a caller asks of the sandbox hook. */
export interface SandboxRequest {
  /** Who is asking (a deliverable type or "engine"). */
  purpose: string;
  /** Allow weaker isolation than the strongest this machine has. */
  allowWeaker?: boolean;
  /**
   * What is confined: "deliverable" code (default) or an "agent" (an engine CLI and its tool commands; see
   * docs/sandbox.md, "Agent profile"). A sandbox for the agent profile offers `confineAgent`.
   */
  profile?: "deliverable" | "agent";
}

/** How one engine run was confined, reported in the job's result. */
export interface AgentConfinement {
  /** "namespaces" (the agent jail) or "none" (unconfined). */
  isolation: IsolationLevel;
  /** "model-endpoint-only": only the model API is reachable; "host": the host's network; "none": no network. */
  network: "model-endpoint-only" | "host" | "none";
  /**
   * The host uid the agent ran as: a per-run uid of its own when the runner is root, the runner's uid otherwise
   * (unprivileged, bubblewrap's user namespace maps it). Unset when the sandbox does not say.
   */
  uid?: number;
  /** "none": no capability, bounding set included, and none to gain (no_new_privs); "runner": the runner's own. */
  capabilities?: "none" | "runner";
  /** A seccomp filter refused the calls a jail does not need (file handles, ptrace, keyrings, bpf, perf, io_uring, new user namespaces). */
  seccomp?: boolean;
  /** The agent could create user namespaces (an engine whose own sandbox needs them; always when unconfined). */
  userNamespaces?: boolean;
}
