/**
 * Every recorded report is checked against the JSON Schema its writer ships before a page shows it: the task report
 * and the suite report (@skillrig/oracle), the solve report (@skillrig/solve) and a skill job's result.json
 * (@skillrig/skills). A report that breaks its schema is named with its JSON pointers on the page (and the rest is
 * still shown as far as it goes), never rendered as a blank or NaN. Checked with core's ajv (`compileSchema`), as
 * the eval files are (`@skillrig/evals/format`'s schemas).
 */
import { createRequire } from "node:module";
import { compileSchema, formatViolations, type CompiledSchema, type JsonSchema } from "@skillrig/core";

const require = createRequire(import.meta.url);

export type ReportKind = "skillrig-task-report" | "skillrig-suite-report" | "skillrig-solve-report" | "skillrig-job-result";

const SCHEMA_OF: Record<ReportKind, string> = {
  "skillrig-task-report": "@skillrig/oracle/task-report.schema.json",
  "skillrig-suite-report": "@skillrig/oracle/suite-report.schema.json",
  "skillrig-solve-report": "@skillrig/solve/solve-report.schema.json",
  "skillrig-job-result": "@skillrig/skills/job-result.schema.json",
};

const compiled = new Map<ReportKind, CompiledSchema>();
function validatorOf(kind: ReportKind): CompiledSchema {
  let v = compiled.get(kind);
  if (!v) {
    v = compileSchema(require(SCHEMA_OF[kind]) as JsonSchema);
    compiled.set(kind, v);
  }
  return v;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Which report a run's file is: its `kind`, else (a task report written before `kind` existed) its shape, else,
 * for a skill job's folder, its result.json.
 */
export function reportKindOf(runKind: string, report: unknown): ReportKind | undefined {
  if (!isObject(report)) return undefined;
  if (typeof report.kind === "string" && report.kind in SCHEMA_OF) return report.kind as ReportKind;
  if (report.kind === undefined && Array.isArray(report.cases)) return "skillrig-task-report";
  if (runKind === "run") return "skillrig-job-result";
  return undefined;
}

/** Null when `report` is what its schema says; else one line naming the file and each pointer at fault. */
export function reportProblem(runKind: string, file: string, report: unknown): string | null {
  if (!isObject(report)) return `${file} is missing or not a JSON object`;
  const kind = reportKindOf(runKind, report);
  if (!kind) return `${file} is no report skillrig knows (kind ${JSON.stringify(report.kind ?? null)})`;
  const violations = validatorOf(kind).validate(report);
  if (violations.length === 0) return null;
  const shown = violations.slice(0, 5);
  const more = violations.length > shown.length ? ` (and ${violations.length - shown.length} more)` : "";
  return `${file} is not a valid ${kind}: ${formatViolations(shown)}${more}`;
}
