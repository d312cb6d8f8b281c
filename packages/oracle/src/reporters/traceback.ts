/**
 * Where a case's Python traceback is: today the function deliverable puts it in `details.traceback`; case results
 * that carry the exception as data (`exception.traceback`, or `traceback` on the case) are read as well, so every
 * reporter prints it from whichever field holds it.
 */
import type { CaseVerdict } from "@skillrig/core";

export function tracebackOf(verdict: CaseVerdict): string | undefined {
  const v = verdict as CaseVerdict & { traceback?: unknown; exception?: { traceback?: unknown } };
  const details = verdict.details ?? {};
  const exception = (details.exception ?? v.exception) as { traceback?: unknown } | undefined;
  const found = [v.traceback, exception?.traceback, details.traceback].find((t) => typeof t === "string" && t.trim() !== "");
  return found as string | undefined;
}
