/** pass@k as the reports write it, read into one shape and shown as chips. */
import { isObject, percent } from "./format.js";

export interface PassAtKValue {
  k: number;
  value: number;
  /** Over how many tasks (a suite's mean), when the report says. */
  tasks?: number;
}

/**
 * pass@k as any report writes it, in order of k: keyed "pass@3" (the oracle's suites) or "3" (solve), valued by a
 * number (a task, an engine) or `{value, tasks}` (a suite's mean). Anything else is left out; the page's schema
 * problem names it.
 */
export function passAtKValues(values: unknown): PassAtKValue[] {
  if (!isObject(values)) return [];
  const out: PassAtKValue[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const match = /^(?:pass@)?([1-9][0-9]*)$/.exec(key);
    if (!match) continue;
    const k = Number(match[1]);
    if (typeof raw === "number" && Number.isFinite(raw)) out.push({ k, value: raw });
    else if (isObject(raw) && typeof raw.value === "number" && Number.isFinite(raw.value))
      out.push({ k, value: raw.value, ...(typeof raw.tasks === "number" ? { tasks: raw.tasks } : {}) });
  }
  return out.sort((a, b) => a.k - b.k);
}

export function PassAtK({ values }: { values: unknown }) {
  const list = passAtKValues(values);
  if (list.length === 0) return null;
  return (
    <span class="passk">
      {list.map((v) => (
        <span key={v.k} class="chip static" data-k={v.k} data-value={v.value}>
          pass@{v.k} {percent(v.value)}
          {v.tasks !== undefined ? <span class="muted"> ({v.tasks} tasks)</span> : null}
        </span>
      ))}
    </span>
  );
}
