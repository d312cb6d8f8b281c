/**
 * __NAME__: the skillrig assertion kind "__KIND__", written on @skillrig/assertion-kit. In a skill's
 * evals/evals.json:
 *
 *   { "kind": "__KIND__", "path": "report.csv", "columns": ["month", "revenue"], "min_rows": 1 }
 *
 * passes when the run left `report.csv` in its outputs, it loads with the team's loader (src/load-csv.ts), has
 * those columns and at least `min_rows` rows. It runs in the runner, on data: it reads the file through
 * `run.readOutput` (which refuses links, special files and files over the cap) and never runs the agent's code.
 */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import { CsvLoadError, loadCsv } from "./load-csv.js";

/** The assertion as evals.json writes it; the schema below is what `skillrig eval` checks before anything runs. */
export interface __TYPE_NAME__ {
  kind: "__KIND__";
  text?: string;
  path: string;
  columns?: string[];
  min_rows?: number;
}

export default () =>
  defineAssertionKind<__TYPE_NAME__>({
    name: "__NAME__",
    kind: "__KIND__",
    runsIn: "runner",
    description: "a CSV file of outputs/ loads with our loader, with the columns and rows it needs",
    schema: {
      type: "object",
      required: ["path"],
      properties: {
        path: { type: "string", minLength: 1 },
        columns: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
        min_rows: { type: "integer", minimum: 0 },
      },
      additionalProperties: false,
    },
    describe: (a) => `${a.path} loads as CSV${a.columns ? ` with columns ${a.columns.join(", ")}` : ""}`,
    async grade(a, run) {
      const read = await run.readOutput(a.path);
      if (!read.ok) return { passed: false, evidence: read.reason };
      let csv: ReturnType<typeof loadCsv>;
      try {
        csv = loadCsv(read.text);
      } catch (error) {
        if (error instanceof CsvLoadError) return { passed: false, evidence: `${a.path} does not load: ${error.message}` };
        throw error;
      }
      const missing = (a.columns ?? []).filter((c) => !csv.columns.includes(c));
      if (missing.length > 0)
        return { passed: false, evidence: `${a.path} has no column ${missing.join(", ")}; its header is ${csv.columns.join(", ")}` };
      if (csv.rows.length < (a.min_rows ?? 0))
        return { passed: false, evidence: `${a.path} has ${csv.rows.length} rows, fewer than ${a.min_rows}` };
      return { passed: true, evidence: `${a.path} loads: ${csv.rows.length} rows, columns ${csv.columns.join(", ")}` };
    },
  });
