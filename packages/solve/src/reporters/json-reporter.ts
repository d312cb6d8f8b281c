import type { SolveReport } from "../report.js";

/** The JSON report: the report model as it is (see report.ts for the meaning of every field). */
export function toSolveJson(report: SolveReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
