/**
 * The messages `function_harness.py` and the runner exchange, one JSON object per line
 * (see the harness's docstring for the full protocol).
 */

/** One parameter of the deliverable's function, as `inspect.signature` reports it. */
export interface SignatureParameter {
  name: string;
  kind: "POSITIONAL_ONLY" | "POSITIONAL_OR_KEYWORD" | "VAR_POSITIONAL" | "KEYWORD_ONLY" | "VAR_KEYWORD";
  has_default: boolean;
}

export interface FunctionSignature {
  /** `summarize_logs(lines, last_n_errors=10)`: the signature without annotations, for messages. */
  display: string;
  parameters: SignatureParameter[];
}

/** First line from a harness whose import succeeded. */
export interface ReadyMessage {
  op: "ready";
  /** null when `inspect.signature` cannot read it (some builtins and C functions). */
  signature: FunctionSignature | null;
  signature_error: string | null;
  import_stdout: string;
  import_stderr: string;
  pid: number;
}

/** First line from a harness that could not load the function. */
export interface LoadErrorMessage {
  op: "load_error";
  kind: "syntax_error" | "import_error" | "missing_function" | "not_callable" | "usage";
  message: string;
  traceback?: string;
  stdout?: string;
  stderr?: string;
  /**
   * A main program that could not be loaded: the exit status `python3 <file>` would have ended with (1 for a
   * syntax error, 2 for a file it cannot open); `traceback` is what it would have printed on stderr.
   */
  exit_code?: number;
}

/** One case to run. `args` is sent as the JSON text of the case's input, spliced in as written in the task file. */
export interface CaseRequest {
  id: number;
  /** The wall-clock backstop of the case's time limit (`timeBackstopMs`). */
  wall_ms: number;
  /** Each process's own CPU limit (RLIMIT_CPU). */
  cpu_ms: number;
  /** The case's time limit: CPU time of its processes together. */
  time_ms: number;
  /** What its folder (and the pair's temp folder) may hold: allocated bytes and entries. */
  disk_bytes: number;
  disk_entries: number;
  memory_bytes: number;
  output_bytes: number;
  /** The longest return value (its JSON text, in bytes) the harness forwards. */
  value_bytes: number;
  /** Cases the runner will still send after this one: the harness forks no spare for a case that will not come. */
  more?: number;
  /** A main case: the arguments after the file name (`sys.argv[1:]`). */
  argv?: string[];
  /** A main case: what the program reads on fd 0. */
  stdin?: string;
  /** A main case: files written into its fresh folder before it runs (relative path -> UTF-8 text). */
  files?: Record<string, string>;
}

/**
 * How a call ended, as the harness reports it: data about what the code did, never a verdict. The runner alone
 * maps it to a status (`case-verdict.ts`); a reply it cannot read is the harness misbehaving.
 */
export type CallEnd =
  | { end: "returned" }
  | { end: "raised"; exception_type: string; exception_message?: string; traceback?: string; exit_code?: string }
  | { end: "unencodable"; return_type: string; return_repr: string; reason: string }
  | { end: "exited"; exit_code: number | null }
  | { end: "signaled"; signal: string }
  | { end: "killed"; reason: "wall" | "cpu" | "disk" | "stdout" | "stderr" | "value" | "bad_result"; cpu_ms?: number }
  | { end: "failed_to_start"; message: string };

/** One reply frame, after the runner checked and bounded it. */
export type CaseReply = CallEnd & {
  id: number;
  /** Time the call took, as the harness measured it (informational only). */
  ms: number;
  /** The return value's JSON text as Python's json.dumps wrote it (only for "returned"). */
  valueJson: string;
  stdout: string;
  stderr: string;
  /** Set by the runner when a section passed its cap: the bytes were dropped, not kept. */
  overCap?: "value" | "stdout" | "stderr";
  /** A main case: its folder as it left it (checked by the runner to be a case folder of this harness). */
  folder?: string;
};
