/** What a suite hands back: a table section for people, figures for the JSON file, goals to mark met or missed. */
import { markdownTable } from "markdown-table";

export interface Section {
  title: string;
  header: string[];
  rows: string[][];
  /** Printed under the table: how to read it, what was extrapolated, what bounds a figure. */
  notes: string[];
  /** Raw samples and medians, keyed by row; goes to the JSON file as it is. */
  figures: Record<string, unknown>;
}

export interface Goal {
  id: string;
  description: string;
  target: string;
  /** The figure the verdict rests on, as shown in the table. */
  measured: string;
  /** null when the figure could not be measured in this run. */
  met: boolean | null;
  note?: string;
}

export interface SuiteOutcome {
  sections: Section[];
  goals: Goal[];
}

export function formatRate(casesPerSecond: number): string {
  if (casesPerSecond >= 100) return Math.round(casesPerSecond).toLocaleString("en-US");
  return casesPerSecond.toFixed(1);
}

export function formatMs(ms: number): string {
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatRatio(ratio: number): string {
  return ratio >= 10 ? `${ratio.toFixed(0)}x` : `${ratio.toFixed(2)}x`;
}

/** A row that could not be measured says why in its first data cell instead of failing the whole run. */
export function unavailableRow(label: string, columns: number, error: unknown): string[] {
  const reason = error instanceof Error ? error.message : String(error);
  return [
    label,
    `not measured: ${reason.replace(/\s+/g, " ").replace(/\|/g, "/").slice(0, 160)}`,
    ...Array(Math.max(0, columns - 2)).fill(""),
  ];
}

export function renderSection(section: Section): string {
  const table = markdownTable([section.header, ...section.rows], { align: section.header.map((_, i) => (i === 0 ? "l" : "r")) });
  const notes = section.notes.map((n) => `- ${n}`).join("\n");
  return `### ${section.title}\n\n${table}\n${notes ? `\n${notes}\n` : ""}`;
}

export function goalsSection(goals: Goal[]): Section {
  return {
    title: "Goals",
    header: ["goal", "target", "measured", "verdict"],
    rows: goals.map((g) => [g.description, g.target, g.measured, g.met === null ? "not measured" : g.met ? "met" : "**missed**"]),
    notes: goals.filter((g) => g.note).map((g) => `${g.description}: ${g.note}`),
    figures: {},
  };
}
