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
}

/** One case to run. */
export interface CaseRequest {
  id: number;
  args: unknown[];
  wall_ms: number;
  cpu_ms: number;
  memory_bytes: number;
  output_bytes: number;
}

/** The harness's answer for one case. `value` is present when `status` is "ok". */
export interface CaseReply {
  id: number;
  status: "ok" | "error" | "timeout" | "memory_limit" | "output_limit";
  /** Time the call itself took, in the child. */
  ms: number;
  stdout: string;
  stderr: string;
  message?: string;
  details?: Record<string, unknown>;
  value?: unknown;
}
