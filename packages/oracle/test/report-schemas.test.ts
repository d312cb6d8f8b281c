/**
 * The report schemas this package ships (`@skillrig/oracle/task-report.schema.json`, `suite-report.schema.json`)
 * against reports the real CLI wrote: a failing one-task run and a suite of three tasks with --samples. The view
 * checks every report it reads against these, so a report the oracle writes must pass them, and a broken one must be
 * named by its pointer.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileSchema, type JsonSchema } from "@skillrig/core";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const schema = (name: string) => JSON.parse(readFileSync(join(repo, "packages/oracle/src", name), "utf8")) as Record<string, unknown>;
const taskSchema = schema("task-report.schema.json");
const suiteSchema = schema("suite-report.schema.json");

function skillrigJson(args: string[], cwd: string): Promise<{ code: number; report: Record<string, unknown> }> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [bin, ...args, "--json", "--no-record"], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      try {
        done({ code: error ? Number((error as { code?: unknown }).code) : 0, report: JSON.parse(stdout) });
      } catch {
        fail(new Error(`skillrig ${args.join(" ")} printed no JSON report: ${stderr}`));
      }
    });
  });
}

describe("the report schemas against reports the CLI wrote", () => {
  it("a failing one-task run: kind and version first, and the report validates", async () => {
    const { code, report } = await skillrigJson(
      ["test", "task.json", "--deliverable", "buggy"],
      join(repo, "examples/oracle-receipt-parser"),
    );
    expect(code).toBe(1);
    expect(Object.keys(report).slice(0, 2)).toEqual(["kind", "version"]);
    expect(report).toMatchObject({ kind: "skillrig-task-report", version: 1 });
    expect(compileSchema(taskSchema as JsonSchema).validate(report)).toEqual([]);
    // The schema is not a blank check: a summary count of the wrong type is named by its pointer.
    const broken = { ...report, summary: { ...(report.summary as object), passed: "3" } };
    expect(compileSchema(taskSchema as JsonSchema).validate(broken)).toEqual([expect.objectContaining({ pointer: "/summary/passed" })]);
  });

  it("a suite of three tasks with --samples validates, pass@k objects and all", async () => {
    const { code, report } = await skillrigJson(
      ["test", "examples/suite-mini/tasks", "--samples", "examples/suite-mini/samples.jsonl"],
      repo,
    );
    expect(code).toBe(1);
    expect(report.kind).toBe("skillrig-suite-report");
    expect((report.tasks as unknown[]).length).toBe(3);
    expect(compileSchema(suiteSchema as JsonSchema).validate(report)).toEqual([]);
    // What the view once read: pass@k as a bare number over the suite is not this shape.
    const flat = { ...report, pass_at_k: { "pass@1": 0.5 } };
    expect(
      compileSchema(suiteSchema as JsonSchema)
        .validate(flat)
        .map((v) => v.pointer),
    ).toContain("/pass_at_k/pass@1");
  });

  it("the suite schema's case and summary are the task report's (one case shape, two self-contained files)", () => {
    const defs = (s: Record<string, unknown>) => s.$defs as Record<string, unknown>;
    for (const name of ["case", "summary", "status"]) expect(defs(suiteSchema)[name], name).toEqual(defs(taskSchema)[name]);
  });
});
