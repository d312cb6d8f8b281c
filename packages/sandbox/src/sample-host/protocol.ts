/**
 * The messages `sample_harness.py` and the runner exchange, one JSON object per line
 * (see the harness's docstring for the full protocol).
 */
import type { SampleCaseEnd, SampleCaseReply, SampleSignature } from "@skillrig/core";

export type { SampleSignature as FunctionSignature, SampleSignatureParameter as SignatureParameter } from "@skillrig/core";

/** First line from a harness whose import succeeded. */
export interface ReadyMessage {
  op: "ready";
  /** null when `inspect.signature` cannot read it (some builtins and C functions). */
  signature: SampleSignature | null;
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

/** How a case ended, as the harness reports it (the runner adds `lost` when the harness itself failed). */
export type CallEnd = Exclude<SampleCaseEnd, { end: "lost" }>;

/** One reply frame, after the runner checked and bounded it (a main case's `folder` checked to be one of this harness's). */
export type CaseReply = Exclude<SampleCaseReply, { end: "lost" }> & { id: number };
