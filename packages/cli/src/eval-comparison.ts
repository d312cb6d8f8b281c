/**
 * `skillrig eval` against an earlier iteration of the same skill: finding it (the one before, or `--against N`),
 * the closing lines (`with_skill 100% -> 50% (-50 pts, 95% CI -100 to 0 pts, p = 1, 2 pairs)`) and the Markdown
 * summary for a pull-request comment (`--reporter markdown`). The numbers are @skillrig/evals' compareIterations.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SkillrigError } from "@skillrig/core";
import type { Benchmark, IterationComparison, IterationResult } from "@skillrig/evals";
import { deltaText, percent, points, statsText } from "./delta-text.js";

/** The iteration numbers of an eval folder that have a benchmark.json, highest first. */
function iterationsWithBenchmark(evalDir: string): number[] {
  if (!existsSync(evalDir)) return [];
  return readdirSync(evalDir)
    .flatMap((name) => {
      const m = /^iteration-([0-9]+)$/.exec(name);
      return m && existsSync(join(evalDir, name, "benchmark.json")) ? [Number(m[1])] : [];
    })
    .sort((a, b) => b - a);
}

/** Reads an earlier iteration's benchmark.json, refusing one that is not JSON or not a benchmark (naming the pointer). */
function readBenchmark(file: string): Benchmark {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SkillrigError("usage", `--against: ${file} is not JSON (${(error as Error).message})`, { field: "--against", file });
  }
  const b = value as Partial<Benchmark> | null;
  const fail = (pointer: string, what: string): never => {
    throw new SkillrigError("usage", `--against: ${file} ${pointer} ${what}`, { field: "--against", file, pointer });
  };
  if (typeof b !== "object" || b === null || Array.isArray(b)) return fail("/", "must be an object");
  if (b.format !== "skillrig-eval-benchmark") fail("/format", 'must be "skillrig-eval-benchmark"');
  if (typeof b.metadata !== "object" || b.metadata === null) fail("/metadata", "must be an object");
  if (!Array.isArray(b.metadata!.configurations)) fail("/metadata/configurations", "must be an array");
  if (!Array.isArray(b.metadata!.engines)) fail("/metadata/engines", "must be an array");
  if (!Array.isArray(b.metadata!.evals_run)) fail("/metadata/evals_run", "must be an array");
  if (!Array.isArray(b.runs)) fail("/runs", "must be an array");
  b.runs!.forEach((r, i) => {
    if (typeof r?.result?.pass_rate !== "number") fail(`/runs/${i}/result/pass_rate`, "must be a number");
    if (typeof r.configuration !== "string") fail(`/runs/${i}/configuration`, "must be a string");
  });
  return b as Benchmark;
}

/** The iteration to compare with: `--against N`, else the newest one that finished (has a benchmark.json). */
export function earlierIteration(evalDir: string, against?: number): Benchmark | undefined {
  const known = iterationsWithBenchmark(evalDir);
  if (against === undefined) {
    const newest = known[0];
    return newest === undefined ? undefined : readBenchmark(join(evalDir, `iteration-${newest}`, "benchmark.json"));
  }
  if (!known.includes(against)) {
    throw new SkillrigError(
      "usage",
      `--against ${against}: ${evalDir} has no iteration-${against} with a benchmark.json${known.length > 0 ? ` (it has ${known.sort((a, b) => a - b).join(", ")})` : ""}`,
      { field: "--against", file: join(evalDir, `iteration-${against}`) },
    );
  }
  return readBenchmark(join(evalDir, `iteration-${against}`, "benchmark.json"));
}

/** The closing lines: each configuration before -> after with its statistics, then the cases that fell. */
export function comparisonLines(c: IterationComparison): string[] {
  const lines = [`against iteration ${c.before}:`];
  for (const row of c.configurations) {
    lines.push(`  ${row.configuration}${row.engine ? ` ${row.engine}` : ""} ${deltaText(row.pass_rate)}`);
  }
  for (const x of c.cases.filter((y) => y.fell)) {
    lines.push(`  eval-${x.eval_id} ${x.configuration} fell: ${percent(x.before)} -> ${percent(x.after)}`);
  }
  if (c.regression)
    lines.push(`  REGRESSION: a case's with_skill pass rate fell${c.significant_drop ? " (significant)" : " (not significant)"}`);
  return lines;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** A pull-request comment: this iteration's numbers, and the comparison with the earlier one when there is one. */
export function evalMarkdown(result: IterationResult): string {
  const b = result.benchmark;
  const lines = [`### skillrig eval: \`${cell(b.metadata.skill_name)}\`, iteration ${result.iteration}`, ""];
  const c = result.comparison;
  if (c) {
    lines.push(
      c.regression
        ? `**REGRESSION against iteration ${c.before}: a case's with_skill pass rate fell${c.significant_drop ? " (significant)" : ""}**`
        : `**No case fell against iteration ${c.before}.**`,
      "",
      "| configuration | before | after | delta | 95% CI | p | pairs |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const row of c.configurations) {
      const d = row.pass_rate;
      const ci = d.ci95 ? `${points(d.ci95[0], false)} to ${points(d.ci95[1], false)} pts` : "–";
      lines.push(
        `| ${cell(`${row.configuration}${row.engine ? ` ${row.engine}` : ""}`)} | ${percent(d.before)} | ${percent(d.after)} | ${points(d.delta)} pts | ${ci} | ${d.p_value ?? "–"} | ${d.pairs} |`,
      );
    }
    const fell = c.cases.filter((x) => x.fell);
    if (fell.length > 0) {
      lines.push("", "Cases that fell:", "");
      for (const x of fell) lines.push(`- eval-${cell(String(x.eval_id))} ${x.configuration}: ${percent(x.before)} → ${percent(x.after)}`);
    }
  } else {
    lines.push("No earlier iteration to compare with.");
  }
  const paired = b.run_summary.delta?.paired?.pass_rate;
  if (b.run_summary.delta && paired) {
    const [first, second] = b.run_summary.delta.of;
    lines.push(
      "",
      `${first} vs ${second}: ${percent(paired.after)} vs ${percent(paired.before)} (${points(paired.delta)} pts, ${statsText(paired)})`,
    );
  }
  lines.push("", `Status: ${result.gated ? (result.passed ? "passed" : "failed") : "finished (no gate)"}`);
  return lines.join("\n");
}
