/**
 * Turns a model's final answer into JSON, repairing common damage in a fixed order and naming each repair:
 *   1. the text as it is;
 *   2. the body of a ```json code fence (the last fence that parses, as models put the answer last);
 *   3. the outermost {...} or [...] span, dropping prose around it;
 *   4. jsonrepair on that span (trailing commas, single quotes, unquoted keys, comments, truncation).
 * The same input always gives the same output and the same list of repairs.
 */
import { jsonrepair } from "jsonrepair";

export type JsonOutputResult =
  | { ok: true; value: unknown; repairs: string[]; text: string }
  | { ok: false; repairs: string[]; message: string; text: string };

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;

/** The outermost balanced JSON object or array in `text`, skipping braces inside strings. */
export function outermostJsonSpan(text: string): string | undefined {
  const start = text.search(/[{[]/);
  if (start < 0) return undefined;
  const open = text[start]!;
  const close = open === "{" ? "}" : "]";
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === open) depth++;
    else if (ch === close) {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  // Unbalanced (a truncated answer): hand the rest to jsonrepair.
  return text.slice(start);
}

export function parseJsonOutput(raw: string): JsonOutputResult {
  const text = raw.trim();
  if (text === "") return { ok: false, repairs: [], message: "the final answer is empty", text: raw };
  const direct = tryParse(text);
  if (direct.ok) return { ok: true, value: direct.value, repairs: [], text };

  const repairs: string[] = [];
  let candidate = text;
  const fences = [...text.matchAll(FENCE)];
  if (fences.length > 0) {
    const bodies = fences.map((m) => m[2]!.trim());
    const parsed = [...bodies].reverse().find((b) => tryParse(b).ok);
    candidate = parsed ?? bodies[bodies.length - 1]!;
    repairs.push(`stripped a \`\`\`${fences[0]![1] || ""} code fence`);
    const fenced = tryParse(candidate);
    if (fenced.ok) return { ok: true, value: fenced.value, repairs, text: candidate };
  }

  const span = outermostJsonSpan(candidate);
  if (span !== undefined && span !== candidate) {
    repairs.push("removed text around the JSON");
    candidate = span;
    const spanned = tryParse(candidate);
    if (spanned.ok) return { ok: true, value: spanned.value, repairs, text: candidate };
  }
  if (span === undefined) {
    return { ok: false, repairs, message: "the final answer holds no JSON object or array", text: raw };
  }

  try {
    const fixed = jsonrepair(candidate);
    const parsed = tryParse(fixed);
    if (parsed.ok) {
      repairs.push("repaired JSON syntax (jsonrepair)");
      return { ok: true, value: parsed.value, repairs, text: fixed };
    }
  } catch (error) {
    return { ok: false, repairs, message: `the final answer is not valid JSON: ${(error as Error).message}`, text: raw };
  }
  return { ok: false, repairs, message: "the final answer is not valid JSON", text: raw };
}
