/**
 * `skillrig eval --reporter junit` on an iteration folder whose grading holds what a hostile judge or agent could
 * write (markup, a CDATA end, control characters, a lone surrogate): the XML still parses (Python's expat, a real
 * parser), with one test case per case x configuration x engine, failures and errors where they belong.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BenchmarkRun, Configuration, Grading, RunAnswer } from "../src/format.js";
import { junitReport, xmlText } from "../src/junit-report.js";
import { buildBenchmark } from "../src/stats.js";

const HOSTILE = 'ok</failure><testcase name="pwned"/><![CDATA[ x ]]> & "q" \u0000\u0007\u001b[31m \ud800 end';

function parse(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = [
    "import sys, xml.etree.ElementTree as ET",
    "root = ET.parse(sys.argv[1]).getroot()",
    "for tc in root.iter('testcase'):",
    "    kids = [c.tag for c in tc]",
    "    text = ''.join(c.text or '' for c in tc)",
    "    print(tc.get('name'), '|', ','.join(kids), '|', repr(text))",
  ].join("\n");
  return new Promise((ok, fail) => {
    const child = spawn("python3", ["-c", script, file], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => ok({ code, stdout, stderr }));
  });
}

describe("junit report", () => {
  it("hostile evidence stays text: the XML parses, failures and errors per case x configuration x engine", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-junit-"));
    const run = (configuration: Configuration, status: BenchmarkRun["result"]["status"], pass_rate: number): BenchmarkRun => ({
      eval_id: 1,
      configuration,
      engine: "gemini",
      run_number: 1,
      path: `eval-1/${configuration}`,
      result: { status, pass_rate, passed: 0, failed: 1, total: 1, time_seconds: 1.5, tokens: 10 },
    });
    const runs = [run("with_skill", "succeeded", 0), run("without_skill", "failed", 0)];
    mkdirSync(join(dir, "eval-1", "with_skill"), { recursive: true });
    mkdirSync(join(dir, "eval-1", "without_skill"), { recursive: true });
    const grading: Grading = {
      assertion_results: [{ text: `the answer <says> ${HOSTILE}`, passed: false, evidence: HOSTILE, graded_by: "judge" }],
      summary: { passed: 0, failed: 1, total: 1, pass_rate: 0 },
    };
    writeFileSync(join(dir, "eval-1", "with_skill", "grading.json"), JSON.stringify(grading));
    const answer: Partial<RunAnswer> = { status: "failed", error: { code: "engine_failed", message: HOSTILE } };
    writeFileSync(join(dir, "eval-1", "without_skill", "answer.json"), JSON.stringify(answer));
    const benchmark = buildBenchmark({
      metadata: {
        skill_name: 'csv"total<',
        skill_path: "/s",
        iteration: 4,
        timestamp: "2026-12-02T00:00:00.000Z",
        engines: ["gemini"],
        configurations: ["with_skill", "without_skill"],
        evals_run: [1],
        runs_per_configuration: 1,
      },
      runs,
    });
    const xml = junitReport(benchmark, dir);
    writeFileSync(join(dir, "junit.xml"), xml);
    const r = await parse(join(dir, "junit.xml"));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^eval-1 with_skill gemini \| failure \| 'the answer <says> ok<\/failure><testcase name="pwned"\/><!\[CDATA\[ x \]\]> & "q" \[31m {2}end \(judge\): ok<\/failure>/,
    );
    expect(lines[1]).toMatch(/^eval-1 without_skill gemini \| error \| 'the job failed \(engine_failed: ok<\/failure>/);
    expect(xml).toContain('failures="1" errors="1"');
    expect(xmlText("a\u0000b\ud800c")).toBe("abc");
  });
});
