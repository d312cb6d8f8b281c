/**
 * Escaping for the HTML report. Everything an agent produced (its transcript, its deliverable, its outputs) and
 * everything a task holds is untrusted text: it only ever enters the page through `escapeHtml`, in text and in
 * quoted attributes alike. Hand-written because the five characters below are the whole job and the report
 * must not depend on a templating engine's autoescape defaults.
 */
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : (JSON.stringify(value, null, 2) ?? String(value));
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A safe fragment id for anchors: letters, digits, `-` and `_` only. */
export function anchorId(...parts: Array<string | number>): string {
  return parts.map((p) => String(p).replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.codePointAt(0)!.toString(16)}`)).join("--");
}
