import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillrigError } from "@skillrig/core";
import type { SolveReport } from "../report.js";
import { toSolveHtml } from "./html-reporter.js";
import { toSolveJson } from "./json-reporter.js";
import { toSolveJunit } from "./junit-reporter.js";

export type SolveReporterName = "json" | "junit" | "html";
const WRITERS: Record<SolveReporterName, { file: string; render: (r: SolveReport) => string }> = {
  json: { file: "solve-report.json", render: toSolveJson },
  junit: { file: "solve-report.junit.xml", render: toSolveJunit },
  html: { file: "solve-report.html", render: toSolveHtml },
};

/** Writes the named reports into `dir` (created if needed); returns the files written. */
export async function writeSolveReports(report: SolveReport, reporters: string[], dir: string): Promise<string[]> {
  for (const name of reporters) {
    if (!(name in WRITERS)) {
      throw new SkillrigError("usage", `unknown reporter "${name}"; available: ${Object.keys(WRITERS).join(", ")}`, {
        field: "--reporter",
      });
    }
  }
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const name of new Set(reporters) as Set<SolveReporterName>) {
    const file = join(dir, WRITERS[name].file);
    await writeFile(file, WRITERS[name].render(report));
    files.push(file);
  }
  return files;
}
