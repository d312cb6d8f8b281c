/**
 * End to end: one budget for a whole solve batch (`skillrig solve --max-tokens`), on the real Gemini CLI against the
 * mock model (examples/solve-run-length's correct agent), metered by engine-kit's proxy, graded by the real oracle.
 * One attempt measures what an attempt uses (T tokens); then a batch of three attempts gets 1.5 T: the first passes,
 * the second is capped to what is left and its job stopped with cost_limit, the third never starts (`not_run`,
 * reason cost_limit). The report keeps all three, says why it stopped, and matches the shipped schema.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema, Runner, type JsonSchema } from "@skillrig/core";
import { compareModesPlugin } from "@skillrig/oracle";
import deliverableFunction from "@skillrig/deliverable-function";
import sandboxPlugin from "@skillrig/sandbox";
import { InvocationBudget, skillProtocolPlugin } from "@skillrig/skills";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { loadScenario } from "@skillrig/mock-model";
import { loadSolveTasks, solve, writeSolveReports, type SolveReport } from "@skillrig/solve";

const example = resolve(fileURLToPath(new URL("../../../examples/solve-run-length", import.meta.url)));

let dir: string;
let measured: SolveReport;
let budget: InvocationBudget;
let report: SolveReport;
const tokens = (r: SolveReport, i = 0) => r.tasks[0]!.attempts[i]!.usage.totalTokens ?? 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-budget-"));
  const runner = new Runner({ cwd: dir })
    .use(new GeminiEnginePlugin())
    .use(compareModesPlugin())
    .use(deliverableFunction())
    .use(skillProtocolPlugin())
    .use(sandboxPlugin());
  const tasks = await loadSolveTasks([join(example, "task.json")], dir);
  const engines = [
    { name: "gemini", label: "gemini-correct", options: { mock_scenario: loadScenario(join(example, "scenarios", "correct.json")) } },
  ];
  try {
    measured = await solve(runner, { tasks, engines, attempts: 1, jobs: 1, runsDir: join(dir, "measure"), timeoutMs: 90_000 });
    budget = new InvocationBudget({ maxTokens: Math.ceil(tokens(measured) * 1.5) });
    report = await solve(runner, { tasks, engines, attempts: 3, jobs: 1, runsDir: join(dir, "runs"), timeoutMs: 90_000, budget });
  } finally {
    await runner.close();
  }
}, 600_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a solve batch's budget (--max-tokens) on gemini against the mock model", () => {
  it("the measuring attempt passed and was metered", () => {
    expect(measured.tasks[0]!.attempts[0]!.status).toBe("passed");
    expect(measured.tasks[0]!.attempts[0]!.usage.source).toBe("proxy");
    expect(tokens(measured)).toBeGreaterThan(0);
    expect(measured.stopped).toBeUndefined();
  });

  it("the first attempt passed, the second was capped to the remainder and stopped, the third was not run", () => {
    const [first, second, third] = report.tasks[0]!.attempts;
    expect(first!.status).toBe("passed");
    expect(second!.job?.error?.code).toBe("cost_limit");
    expect(second!.status).not.toBe("passed");
    // Capped to what was left (about half an attempt): it stopped before using a whole attempt's tokens.
    expect(second!.usage.totalTokens ?? 0).toBeLessThan(tokens(measured));
    expect(third).toMatchObject({ attempt: 3, status: "not_run", reason: "cost_limit" });
    expect(third!.message).toMatch(/^not run: the invocation's token budget is spent/);
    expect(third!.job).toBeUndefined();
    expect(budget.spent().jobs).toBe(2);
  });

  it("the report says why the batch stopped, keeps every attempt and matches the shipped schema", async () => {
    expect(report.stopped).toMatchObject({ code: "cost_limit" });
    expect(report.summary).toMatchObject({ attempts: 3, passed: 1, not_passed: 2 });
    expect(report.engines[0]!.statuses).toMatchObject({ passed: 1, not_run: 1 });
    const [file] = await writeSolveReports(report, ["json"], join(dir, "out"));
    const json = JSON.parse(await readFile(file!, "utf8")) as unknown;
    const schema = JSON.parse(await readFile(join(import.meta.dirname, "../src/solve-report.schema.json"), "utf8")) as JsonSchema;
    expect(compileSchema(schema).validate(json)).toEqual([]);
  });
});
