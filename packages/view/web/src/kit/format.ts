/** Small display helpers shared by the pages. */

export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)}%`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

// One date format for every page (and the bundle's header): the viewer's locale and time zone, always the same fields.
const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const TIME_OF_DAY = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** A moment as every page writes it (local time); text that is not a date is shown as it is. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}

/** The time of day of a moment, for events of one run (the run's date is on its page already). */
export function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : TIME_OF_DAY.format(date);
}

/** A value as text for display and diffing: strings as they are, anything else as indented JSON. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value, null, 2) ?? String(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Dollars: four decimals below a dollar (model calls cost fractions of a cent), two above; "unpriced" for a cost no price table knew. */
export function usd(value: number | null | undefined | "unpriced"): string {
  if (value === "unpriced" || value === null) return "unpriced";
  if (value === undefined || !Number.isFinite(value)) return "–";
  return `$${Math.abs(value) < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** A signed difference: pass rates in percentage points, seconds, tokens. */
export function signed(value: number | null | undefined, unit: "rate" | "seconds" | "tokens" | "usd"): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
  const abs = Math.abs(value);
  if (unit === "usd") return `${sign}${usd(abs)}`;
  if (unit === "rate") return `${sign}${(abs * 100).toFixed(1)} pp`;
  if (unit === "seconds") return `${sign}${abs.toFixed(1)} s`;
  return `${sign}${Math.round(abs)}`;
}

/** An eval case by its id as evals.json gives it: `accent` for `"id": "accent"`, `eval 3` for `"id": 3`. */
export function evalCaseName(id: number | string): string {
  return typeof id === "number" ? `eval ${id}` : id;
}

export function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
