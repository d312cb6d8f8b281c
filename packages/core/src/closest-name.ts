/**
 * "Did you mean": the known name nearest to one a person typed (an engine, a plugin, an assertion kind, a command,
 * a config key). fastest-levenshtein computes the edit distance (small, dependency-free, the one many CLIs use);
 * what counts as near is decided here once, so every suggestion in skillrig follows the same rule.
 */
import { distance } from "fastest-levenshtein";

/**
 * The candidate nearest to `typed`, when it is near enough to be a slip of the keyboard: at most a third of the
 * longer name's length, and never more than 3 edits; case is ignored. Undefined when none is (a guess then would
 * mislead), or when `typed` is itself a candidate.
 */
export function closestName(typed: string, candidates: Iterable<string>): string | undefined {
  const wanted = typed.toLowerCase();
  let best: { name: string; edits: number } | undefined;
  for (const name of candidates) {
    if (name === typed) return undefined;
    const edits = distance(wanted, name.toLowerCase());
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(name.length, typed.length) / 3)));
    if (edits <= allowed && (best === undefined || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
}

/** ` (did you mean "x"?)` for a message, or "" when nothing is near. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const near = closestName(typed, candidates);
  return near === undefined ? "" : ` (did you mean "${near}"?)`;
}
