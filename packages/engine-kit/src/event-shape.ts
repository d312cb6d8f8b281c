/**
 * The shape of a CLI's JSON event stream: for each kind of event (its `type`, and the `type` of the item it carries
 * when it carries one), the key paths it has, two levels deep. Values are left out, so the shape of a pinned CLI is
 * stable from run to run and changes only when the CLI's event format does: what an engine's drift test compares.
 */

export type EventShape = Record<string, string[]>;

function keyPaths(value: unknown, prefix: string, depth: number, out: Set<string>): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.add(path);
    if (depth > 1) keyPaths(inner, path, depth - 1, out);
  }
}

/** The shape of the JSON lines in `stdout` (other lines are ignored). */
export function eventShape(stdout: string): EventShape {
  const shapes = new Map<string, Set<string>>();
  for (const line of stdout.split("\n")) {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event === null || typeof event !== "object" || Array.isArray(event)) continue;
    const record = event as { type?: unknown; item?: { type?: unknown } };
    const kind = `${String(record.type)}${record.item && typeof record.item.type === "string" ? `/${record.item.type}` : ""}`;
    const keys = shapes.get(kind) ?? new Set<string>();
    keyPaths(event, "", 2, keys);
    shapes.set(kind, keys);
  }
  return Object.fromEntries([...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, [...v].sort()]));
}

/** What changed from `expected` to `actual`, one line each ("+ event x", "- key x: a.b"); empty when equal. */
export function eventShapeDiff(expected: EventShape, actual: EventShape): string[] {
  const lines: string[] = [];
  for (const kind of Object.keys(expected)) if (!(kind in actual)) lines.push(`- event ${kind} (no longer emitted)`);
  for (const kind of Object.keys(actual)) if (!(kind in expected)) lines.push(`+ event ${kind} (new)`);
  for (const kind of Object.keys(expected)) {
    if (!(kind in actual)) continue;
    const had = new Set(expected[kind]);
    const has = new Set(actual[kind]);
    for (const k of had) if (!has.has(k)) lines.push(`- ${kind}: ${k}`);
    for (const k of has) if (!had.has(k)) lines.push(`+ ${kind}: ${k}`);
  }
  return lines;
}
