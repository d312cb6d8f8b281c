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

/** A long-lived sandboxed process with open pipes (the sample host speaks a protocol over them). */
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
  /**
   * The sample host (docs/sandbox.md, "The sample host"): loads a sample once in a pre-initialised sandboxed
   * interpreter and runs each case in a fork of it, under the sample's own uid where the sandbox can give one.
   * A sandbox without it runs every case as a process of its own (`run`).
   */
  openSample?(options: SampleOpenOptions): Promise<OpenSample>;
  /**
   * Per-sample uids (isolate's `--box-id`, as a capability): present only where this sandbox can run each sample as
   * a uid of its own, which no other sample or run holds (in `@skillrig/sandbox`: root at level `namespaces`). The
   * sample host (`createSampleHost` of `@skillrig/sandbox`) then serves every sample from one shared host, each
   * under its leased uid; without it, every sample gets a host of its own. A team's own sandbox offers it to get the
   * shared host, and leaves it out when it cannot keep samples apart by uid.
   */
  readonly sampleUids?: SampleUidSupport;
  /** Stops what the sandbox keeps across runs (the shared sample host); the runner calls it when it closes. */
  close?(): Promise<void>;
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
  /**
   * Bounds on the agent's processes (`sandbox.agent` of the config): processes (and threads) at once, the size of
   * its private `/tmp`, the largest file it may write. A jail that cannot hold one says so in `warnings`.
   */
  limits?: AgentJailLimits;
}

/** Bounds the agent jail enforces on the agent's processes. */
export interface AgentJailLimits {
  processes?: number;
  tmpBytes?: number;
  fileBytes?: number;
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

// ------------------------------------------------------------------------------------------------ the sample host

/**
 * What a sandbox gives the shared sample host when it can keep samples apart by uid: a spawn that keeps
 * CAP_SETUID, CAP_SETGID and CAP_SETPCAP (nothing else), so the host may switch each sample's process to a uid
 * leased for that sample alone, which drops all three before the sample's code runs; and the leases.
 */
export interface SampleUidSupport {
  /** Starts the shared host in the sandbox, with the three capabilities above and no other. */
  spawnSampleHost(options: Omit<SandboxSpawnOptions, "stdin">): SandboxProcess;
  /** A uid for one sample, held until `release` (which first kills anything still running as it); undefined when none is free. */
  leaseSampleUid(): SampleUidLease | undefined;
  /** The python3 a `python3` command runs as in this sandbox (absolute): the host's bytecode is compiled with it. */
  readonly pythonExecutable?: string;
}

export interface SampleUidLease {
  readonly uid: number;
  /**
   * Gives the uid back. Before that, the sandbox's own sweep of the machine for processes of the uid: skipped with
   * `hostSwept`, when the shared host reported the end of every process it ran as this uid, which it does only
   * after killing everything of the uid in its pid namespace (the only place such a process can be).
   */
  release(options?: { hostSwept?: boolean }): void;
}

/**
 * What a sample is to the sample host: how it is loaded once, and how each of its cases invokes it.
 * - `function`: a Python module, imported once; each case calls `functionName(*args)` in a fork of the importer.
 * - `main`: a Python file, compiled once; each case runs it as `__main__` (with its argv, stdin and files, in a
 *   fresh working folder) in a fork of an interpreter that is already up: the script and cli types.
 */
export type SampleProgram = { kind: "function"; entryFile: string; functionName: string } | { kind: "main"; entryFile: string };

export interface SampleOpenOptions {
  program: SampleProgram;
  /** The snapshot folder that holds `program.entryFile` (read-only inside; the host copies nothing else in). */
  snapshotDir: string;
  /** Cases of this sample that may run at once (forks side by side). A `main` sample runs its cases one at a time. */
  concurrency: number;
  /** How many cases will be sent, when known: no fork is made ahead of need for a case that never comes. */
  cases?: number;
  /**
   * The sample as a whole: `wallMs` bounds all its cases together (a backstop), `maxProcesses` its processes at once,
   * `fileSizeBytes` any file it writes; each case gets its own limits with its request.
   */
  limits: ResourceLimits;
  /** Aborting kills the sample's whole tree; cases in flight end with `lost`. */
  signal?: AbortSignal;
  /** The Python interpreter. Default "python3" (the sandbox resolves it to the user's real one). */
  python?: string;
  /** How long loading (a function's import) may take. Default 30 000 ms. */
  loadTimeoutMs?: number;
  /** How long past a case's wall backstop the sample may stay silent before it counts as stuck (`lost`). Default 5000 ms. */
  stuckGraceMs?: number;
  /** Times the sample's process is started again after it died, per open sample. Default 3. */
  maxRestarts?: number;
  /**
   * false: never share a host with other samples (a sandbox of the sample's own), even where the sandbox could keep
   * samples apart by uid. Default true.
   */
  shareHost?: boolean;
}

/** One parameter of a function sample, as Python's `inspect.signature` reports it. */
export interface SampleSignatureParameter {
  name: string;
  kind: "POSITIONAL_ONLY" | "POSITIONAL_OR_KEYWORD" | "VAR_POSITIONAL" | "KEYWORD_ONLY" | "VAR_KEYWORD";
  has_default: boolean;
}

export interface SampleSignature {
  /** `summarize_logs(lines, last_n_errors=10)`: the signature without annotations, for messages. */
  display: string;
  parameters: SampleSignatureParameter[];
}

/** How loading the sample went (a function sample's import; a main sample's compile). */
export type SampleLoad =
  | {
      ok: true;
      /** A function sample's signature; null when `inspect.signature` cannot read it (or a main sample). */
      signature: SampleSignature | null;
      signatureError: string | null;
      /** What the import printed. */
      stdout: string;
      stderr: string;
    }
  | {
      ok: false;
      kind: "syntax_error" | "import_error" | "missing_function" | "not_callable" | "usage";
      message: string;
      traceback?: string;
      stdout?: string;
      stderr?: string;
    };

/** One case for an open sample. Nothing expected ever goes in: only what the case runs with. */
export interface SampleCase {
  /** The case's own limits: `cpuTreeMs` (its time limit), `wallMs` (the backstop), memory, output, disk. */
  limits: ResourceLimits;
  /** function: the args list as JSON text (the task file's own text, so numbers stay as written). */
  argsJson?: string;
  /** main: the arguments after the file name (`sys.argv[1:]`). */
  argv?: string[];
  /** main: what the program reads on stdin. */
  stdin?: string;
  /** main: files written into the case's fresh working folder before it runs (relative path -> UTF-8 text). */
  files?: Record<string, string>;
}

/**
 * How a case ended, as the host reports it: data about what the code did, never a verdict. The deliverable type
 * alone maps it to a status; nothing in it can make a case pass (expected values never enter the sandbox).
 */
export type SampleCaseEnd =
  /** function: the call returned; `valueJson` is its JSON text. */
  | { end: "returned" }
  /** function: the call raised (SystemExit included, with `exit_code`). */
  | { end: "raised"; exception_type: string; exception_message?: string; traceback?: string; exit_code?: string }
  /** function: the value has no JSON form. */
  | { end: "unencodable"; return_type: string; return_repr: string; reason: string }
  /** main: the program ended with this exit status (uncaught exception: 1, as python3 does); function: the case's process exited. */
  | { end: "exited"; exit_code: number | null }
  | { end: "signaled"; signal: string }
  /** Stopped at a limit: its wall backstop, CPU time, disk, an output stream, the value's size, or an unreadable result. */
  | { end: "killed"; reason: "wall" | "cpu" | "disk" | "stdout" | "stderr" | "value" | "bad_result"; cpu_ms?: number }
  | { end: "failed_to_start"; message: string }
  /**
   * The sample's process ended, stalled or misbehaved while this case ran (its own doing: the host moves a sample
   * whose host was lost for another's doing elsewhere and runs its case again). `stuck`: it did not answer within
   * the case's wall backstop plus grace.
   */
  | { end: "lost"; message: string; stuck?: boolean; details?: Record<string, unknown> };

export type SampleCaseReply = SampleCaseEnd & {
  /** Time the case took as the host measured it (informational). */
  ms: number;
  /** Time the case waited behind other cases of its sample before it started (cases sent as one batch). */
  queuedMs?: number;
  /** function, `returned`: the return value's JSON text as Python's json.dumps wrote it; "" otherwise. */
  valueJson: string;
  stdout: string;
  stderr: string;
  /** A section passed its cap: its bytes past the cap were dropped. */
  overCap?: "value" | "stdout" | "stderr";
  /**
   * main: the case's working folder on this machine, as the case left it (nothing of the case runs any more).
   * Read it without following links; it is removed when the next case of this sample starts or the sample closes.
   */
  folder?: string;
};

/** A sample loaded in the sample host: its cases run in forks of it. */
export interface OpenSample {
  readonly load: SampleLoad;
  /** The isolation level its cases run at. */
  readonly isolation: IsolationLevel;
  /** Runs one case (after a successful load). Never rejects for what the sample did: that is a reply. */
  run(testCase: SampleCase): Promise<SampleCaseReply>;
  /** Stops everything of the sample and removes its folders. */
  close(): Promise<void>;
}
