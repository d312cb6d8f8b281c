/**
 * The one status palette of the view: every badge, table cell and count reads its colour, its shape and its
 * words from here. A status is never told by colour alone: each tone has a symbol beside its word, so the pages
 * read the same to a colour-blind user and in the dark theme (the colours are CSS variables, style.css).
 */
import type { ComponentChildren } from "preact";

/** The tones the statuses of every report fall into. */
export type StatusTone = "passed" | "failed" | "error" | "timeout" | "limits" | "invalid" | "not_run" | "running" | "neutral";

interface ToneLook {
  /** A shape beside the word: the status without its colour. */
  symbol: string;
  /** What the tone means, for the legend and the badge's title. */
  meaning: string;
}

export const TONES: Readonly<Record<StatusTone, ToneLook>> = Object.freeze({
  passed: { symbol: "✓", meaning: "passed" },
  failed: { symbol: "✗", meaning: "failed: a wrong answer" },
  error: { symbol: "!", meaning: "error: it could not run or be graded" },
  timeout: { symbol: "◔", meaning: "timed out" },
  limits: { symbol: "▲", meaning: "over a limit (memory, output)" },
  invalid: { symbol: "?", meaning: "invalid: the test or deliverable breaks its format" },
  not_run: { symbol: "○", meaning: "not run" },
  running: { symbol: "…", meaning: "running or waiting" },
  neutral: { symbol: "●", meaning: "finished, with no verdict" },
});

/** Every status word a report, a job or an eval writes, by its tone. A word not here is `neutral`, shown as written. */
const TONE_OF: Readonly<Record<string, StatusTone>> = Object.freeze({
  passed: "passed",
  succeeded: "passed",
  failed: "failed",
  error: "error",
  errored: "error",
  engine_failed: "error",
  artifact_missing: "error",
  grading_error: "error",
  timeout: "timeout",
  timed_out: "timeout",
  memory_limit: "limits",
  output_limit: "limits",
  limits: "limits",
  invalid: "invalid",
  invalid_test_format: "invalid",
  not_graded: "invalid",
  not_run: "not_run",
  canceled: "not_run",
  skipped: "not_run",
  running: "running",
  queued: "running",
  waiting_upload: "running",
  finished: "neutral",
});

/**
 * A status's tone. A report that breaks its schema may have no status word (or not a string): that is `unknown`,
 * neutral, and the page's schema problem names it; the page never throws on it.
 */
export function toneOf(status: unknown): StatusTone {
  return typeof status === "string" ? (TONE_OF[status.replace(/ /g, "_")] ?? "neutral") : "neutral";
}

function wordOf(status: unknown): string {
  return typeof status === "string" && status !== "" ? status : "unknown";
}

/** The classes of anything coloured by a status: `s-<status>` names it (tests, filters), `t-<tone>` gives its look. */
export function statusClass(status: unknown): string {
  return `s-${wordOf(status).replace(/[^a-z_]/g, "")} t-${toneOf(status)}`;
}

/**
 * A status badge: the tone's colour, its symbol and the status's own word (as the report writes it, so the page, the
 * console and the JSON say the same). The symbol is drawn by CSS from
 * `data-symbol` (style.css), so the badge's text stays the word that tests, exports and screen readers read.
 */
export function Status({ status, children }: { status: unknown; children?: ComponentChildren }) {
  const tone = toneOf(status);
  return (
    <span class={`status ${statusClass(status)}`} data-symbol={TONES[tone].symbol} data-tone={tone} title={TONES[tone].meaning}>
      {wordOf(status)}
      {children}
    </span>
  );
}

/** A table cell's button for one graded thing: its status (symbol and word) and what its counts count. */
export function StatusCellLabel({ status, counts }: { status: unknown; counts?: string }) {
  const tone = toneOf(status);
  return (
    <>
      <span class="status-word" data-symbol={TONES[tone].symbol}>
        {wordOf(status)}
      </span>
      {counts ? <span class="cell-counts"> {counts}</span> : null}
    </>
  );
}

/** How many of a list have each status, in the palette's order (passed first, then the worst). */
export function countStatuses(statuses: unknown[]): Array<{ status: string; count: number }> {
  const order = Object.keys(TONES) as StatusTone[];
  const counts = new Map<string, number>();
  for (const s of statuses.map(wordOf)) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts.entries()]
    .map(([status, count]) => ({ status, count }))
    .sort((a, b) => order.indexOf(toneOf(a.status)) - order.indexOf(toneOf(b.status)) || a.status.localeCompare(b.status));
}

/**
 * What a set of cases did, in words that say what they count: `2/3 passed · 1 error`. A sample whose three cases
 * all errored reads `0/3 passed · 3 error`, never `failed 0/3`.
 */
export function countsText(statuses: unknown[]): string {
  const passed = statuses.filter((s) => toneOf(s) === "passed").length;
  const others = countStatuses(statuses).filter((c) => toneOf(c.status) !== "passed");
  return [`${passed}/${statuses.length} passed`, ...others.map((c) => `${c.count} ${c.status}`)].join(" · ");
}
