/**
 * Input Contract v1.0 for function cases: `input` is always the positional args list, and `fn(*input)` must be
 * a call the real signature accepts. Nothing is wrapped, unwrapped or guessed; a mismatch is `invalid_test_format`.
 */
import { pointer, type Violation } from "@skillrig/core";
import type { SampleSignature as FunctionSignature } from "@skillrig/core";

/** The contract's own message for an input that is not a list. */
export const ARGS_LIST_MESSAGE = "invalid_test_format: function input must be args list";

/** How many positional arguments a signature accepts, and what can never be met by positional args. */
export interface PositionalArity {
  /** Positional parameters without a default. */
  required: number;
  /** All positional parameters; undefined with `*args` (no upper bound). */
  max: number | undefined;
  /** Keyword-only parameters without a default: an args list can never fill them. */
  requiredKeywordOnly: string[];
}

export function positionalArity(signature: FunctionSignature): PositionalArity {
  let required = 0;
  let positional = 0;
  let variadic = false;
  const requiredKeywordOnly: string[] = [];
  for (const p of signature.parameters) {
    if (p.kind === "POSITIONAL_ONLY" || p.kind === "POSITIONAL_OR_KEYWORD") {
      positional++;
      if (!p.has_default) required++;
    } else if (p.kind === "VAR_POSITIONAL") variadic = true;
    else if (p.kind === "KEYWORD_ONLY" && !p.has_default) requiredKeywordOnly.push(p.name);
  }
  return { required, max: variadic ? undefined : positional, requiredKeywordOnly };
}

const argumentCount = (n: number) => `${n} positional argument${n === 1 ? "" : "s"}`;

/** What the signature takes, in words: "takes 2 positional arguments", "takes from 1 to 3 ...", "takes at least 1 ...". */
export function describeArity({ required, max }: PositionalArity): string {
  if (max === undefined) return `takes at least ${argumentCount(required)}`;
  if (max === required) return `takes ${argumentCount(required)}`;
  return `takes from ${required} to ${argumentCount(max)}`;
}

/**
 * Checks one case's input. `signature` is undefined when it could not be read (the import failed or
 * `inspect.signature` could not tell); then only the list rule applies and the call itself decides.
 */
export function checkArgs(input: unknown, caseIndex: number, signature: FunctionSignature | undefined): Violation[] {
  const at = pointer("tests", caseIndex, "input");
  // The contract fixes this message word for word; the pointer says which case.
  if (!Array.isArray(input)) return [{ pointer: at, message: ARGS_LIST_MESSAGE, rule: "args_list" }];
  if (!signature) return [];
  const arity = positionalArity(signature);
  if (arity.requiredKeywordOnly.length > 0) {
    const names = arity.requiredKeywordOnly.map((n) => `"${n}"`).join(", ");
    return [
      {
        pointer: at,
        rule: "keyword_only",
        message: `invalid_test_format: ${signature.display} has required keyword-only parameter${arity.requiredKeywordOnly.length === 1 ? "" : "s"} ${names}, which a positional args list can never fill`,
      },
    ];
  }
  const given = input.length;
  if (given < arity.required || (arity.max !== undefined && given > arity.max)) {
    return [
      {
        pointer: at,
        rule: "arity",
        message: `invalid_test_format: ${signature.display} ${describeArity(arity)}, the case gives ${given}`,
      },
    ];
  }
  return [];
}
