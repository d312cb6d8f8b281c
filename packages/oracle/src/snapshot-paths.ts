/**
 * The code under test runs from a snapshot of the deliverable in a temp folder (deliverable-kit's
 * `<tmp>/skillrig-<type>-XXXXXX/deliverable/`, or the shared sample host's `<tmp>/skillrig-host-XXXXXX/samples/<pair>/deliverable/`),
 * so Python's tracebacks and messages name that copy, which is gone when the run ends. The runner (trusted, after
 * the verdict is decided) puts the user's own deliverable folder back in every message and detail a case carries;
 * of the values compared (`actual`, after the comparison) only a program's `stderr` is, for its traceback.
 */
import type { CaseVerdict, Deliverable } from "@skillrig/core";

/** A snapshot folder as the code saw it: any absolute prefix, a skillrig temp folder, the optional pair folder, `deliverable`. */
const SNAPSHOT_DIR = /(?:\/[^/\s"'<>]+)*?\/skillrig-[\w.-]+-[A-Za-z0-9]{6}\/(?:samples\/[\w.-]+\/)?deliverable(?=\/)/g;

/**
 * The verdict with `snapshot` (default: this runner's snapshot folders) replaced by the user's deliverable folder.
 * A jobs server's report names the server's copy instead, which `skillrig test --server` maps with its own pattern.
 */
export function withUserPaths(verdict: CaseVerdict, deliverable: Pick<Deliverable, "dir">, snapshot: RegExp = SNAPSHOT_DIR): CaseVerdict {
  const map = (text: string) => text.replace(snapshot, () => deliverable.dir);
  const mapped: CaseVerdict = { ...verdict };
  if (verdict.message !== undefined) mapped.message = map(verdict.message);
  if (verdict.details !== undefined) mapped.details = mapStrings(verdict.details, map) as Record<string, unknown>;
  // A script's or cli's stderr (its traceback) is part of `actual`; the rest of what it produced stays as it was.
  const actual = verdict.actual as { stderr?: unknown } | null | undefined;
  if (typeof actual === "object" && actual !== null && typeof actual.stderr === "string")
    mapped.actual = { ...actual, stderr: map(actual.stderr) };
  return mapped;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  }
  return value;
}
