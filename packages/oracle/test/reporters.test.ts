import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { convert } from "xmlbuilder2";
import { ConsoleReporter, JsonReporter, JunitReporter, formatSummary, useColor, type JsonReport } from "@skillrig/oracle";

interface JunitCase {
  "@name": string;
  failure?: { "@type": string; "#": string };
  error?: { "@type": string };
}
interface JunitDoc {
  testsuites: { testsuite: { "@name": string; "@tests": string; "@failures": string; "@errors": string; testcase: JunitCase[] } };
}
import { makeRunner, runTaskWith, scriptTask, tempDir } from "./helpers.js";

function sink() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk) => (text += chunk));
  return { stream, text: () => text };
}

const TASK = scriptTask(
  [
    { name: "passes", input: { stdin: "a" }, expected: { stdout: "A" } },
    { name: "fails <&>", input: { stdin: "b" }, expected: { stdout: "X" } },
    { name: "times out", input: { stdin: "spin" }, expected: {}, timeout_ms: 500 },
    { name: "invalid", input: { argv: [] }, expected: {} },
  ],
  { task_id: "report-demo" },
);
const MAIN = "import sys\ns = sys.stdin.read()\nif s == 'spin':\n    while True: pass\nprint(s.upper())\n";

describe("reporters", () => {
  it("console: one progress line per case while running, then a summary table and the diffs", async () => {
    const progress = sink();
    const summary = sink();
    await runTaskWith(
      TASK,
      { "main.py": MAIN },
      { runner: makeRunner([new ConsoleReporter({ progress: progress.stream, summary: summary.stream })]) },
    );
    const lines = progress.text().trim().split("\n");
    expect(lines[0]).toMatch(/^task report-demo \(script, 4 case\(s\), 2 at once, isolation \w+\)$/);
    expect(lines.slice(1)).toHaveLength(4);
    expect(lines.some((l) => /\[\d\/4\] ✓ passes \(\d+ ms\)$/.test(l))).toBe(true);
    expect(lines.some((l) => /✗ fails <&> .* failed: stdout differs \(trim\)/.test(l))).toBe(true);
    const table = summary.text();
    expect(table).toMatch(/#\s+case\s+status\s+ms\s+message/);
    expect(table).toMatch(/2\s+times out\s+timeout\s+\d+\s+used more than 500 ms of CPU time/);
    expect(table).toContain("report-demo: 4 case(s): 1 passed, 1 failed, 1 errored, 1 invalid");
    // Every case that did not pass, with its input; a failed one with its diff, others with their message.
    expect(table).toContain('--- fails <&> (failed)\ninput: {"stdin":"b"}\n--- expected stdout\n+++ actual stdout');
    expect(table).toContain('--- times out (timeout)\ninput: {"stdin":"spin"}\nused more than 500 ms of CPU time (its processes together)');
    expect(table).toContain('--- invalid (invalid_test_format)\ninput: {"argv":[]}');
    expect(table).not.toContain("--- passes");
    // Not a terminal: no colour codes.
    expect(progress.text() + table).not.toContain("\u001b[");
  });

  it("console: colours when asked, following NO_COLOR and FORCE_COLOR otherwise", async () => {
    const summary = sink();
    await runTaskWith(
      TASK,
      { "main.py": MAIN },
      { runner: makeRunner([new ConsoleReporter({ progress: sink().stream, summary: summary.stream, color: true })]) },
    );
    expect(summary.text()).toContain("\u001b[32m+B");
    expect(summary.text()).toContain("\u001b[31m-X");
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(tty, { NO_COLOR: "1" })).toBe(false);
    expect(useColor(tty, { TERM: "dumb" })).toBe(false);
    expect(useColor(new PassThrough(), {})).toBe(false);
    expect(useColor(new PassThrough(), { FORCE_COLOR: "1" })).toBe(true);
    expect(useColor(tty, { FORCE_COLOR: "0" })).toBe(true);
  });

  it("console: prints a case's traceback from whichever field holds it, its last lines only", () => {
    const long = ["Traceback (most recent call last):", ...Array.from({ length: 30 }, (_, i) => `  frame ${i}`), "KeyError: 'total'"].join(
      "\n",
    );
    const base = { index: 0, duration_ms: 1, expected: 1, actual: null, message: "KeyError: 'total'" };
    const report = {
      task_id: "tb",
      deliverable_type: "function" as const,
      summary: { total: 3, passed: 0, failed: 0, errored: 3, invalid: 0 },
      cases: [
        { ...base, name: "in details", status: "error" as const, input: [1], details: { traceback: long } },
        {
          ...base,
          index: 1,
          name: "as data",
          status: "error" as const,
          details: { exception: { type: "KeyError", traceback: "Traceback\nKeyError: 'a'" } },
        },
        { ...base, index: 2, name: "stderr only", status: "error" as const, details: { stderr: "Segmentation fault" } },
      ],
    };
    const text = formatSummary(report);
    expect(text).toContain("--- in details (error)\ninput: [1]\nKeyError: 'total'\n  ... 12 earlier traceback lines\n  frame 11");
    expect(text).toContain("KeyError: 'total'\n");
    expect(text).not.toContain("frame 10\n");
    expect(text).toContain("--- as data (error)\nKeyError: 'total'\nTraceback\nKeyError: 'a'");
    expect(text).toContain("--- stderr only (error)\nKeyError: 'total'\nstderr:\nSegmentation fault");
  });

  it("json: the documented shape, with every case's message (null when passed)", async () => {
    const out = sink();
    const dir = tempDir();
    const files: string[] = [];
    await runTaskWith(
      TASK,
      { "main.py": MAIN },
      { runner: makeRunner([new JsonReporter({ stream: out.stream, dir, onFile: (f) => files.push(f) })]) },
    );
    const report = JSON.parse(out.text()) as JsonReport;
    expect(files).toEqual([join(dir, "report-demo.json")]);
    expect(JSON.parse(readFileSync(files[0]!, "utf8"))).toEqual(report);
    expect(report.task_id).toBe("report-demo");
    expect(report.summary).toEqual({ total: 4, passed: 1, failed: 1, errored: 1, invalid: 1 });
    for (const c of report.cases)
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["name", "status", "duration_ms", "expected", "actual", "message"]));
    expect(report.cases.map((c) => [c.name, c.status])).toEqual([
      ["passes", "passed"],
      ["fails <&>", "failed"],
      ["times out", "timeout"],
      ["invalid", "invalid_test_format"],
    ]);
    expect(report.cases[0]!.message).toBeNull();
    expect(report.cases.map((c) => c.input)).toEqual([{ stdin: "a" }, { stdin: "b" }, { stdin: "spin" }, { argv: [] }]);
    expect((report.cases[0]!.actual as { stdout: string }).stdout).toBe("A\n");
    expect(report.cases[3]!.message).toBe(
      'invalid_test_format: script input has unknown key "argv"; allowed: stdin, files (a script takes no arguments; use deliverable_type "cli")',
    );
  });

  it("junit: one testsuite per task; failed cases are <failure>, the rest that did not pass are <error>", async () => {
    const dir = tempDir();
    const files: string[] = [];
    await runTaskWith(TASK, { "main.py": MAIN }, { runner: makeRunner([new JunitReporter({ dir, onFile: (f) => files.push(f) })]) });
    expect(files).toEqual([join(dir, "report-demo.junit.xml")]);
    const xml = readFileSync(files[0]!, "utf8");
    // Names are escaped once (xmlbuilder2's own parser hands attributes back still escaped, so look at the text).
    expect(xml).toContain('<testcase name="fails &lt;&amp;&gt;"');
    const doc = convert(xml, { format: "object" }) as unknown as JunitDoc;
    const suite = doc.testsuites.testsuite;
    expect(suite["@name"]).toBe("report-demo");
    expect([suite["@tests"], suite["@failures"], suite["@errors"]]).toEqual(["4", "1", "2"]);
    const cases = Object.fromEntries(suite.testcase.map((c) => [c["@name"].replace("&lt;&amp;&gt;", "<&>"), c]));
    expect(cases.passes!.failure ?? cases.passes!.error).toBeUndefined();
    expect(cases["fails <&>"]!.failure!["@type"]).toBe("failed");
    expect(cases["fails <&>"]!.failure!["#"]).toContain("+B");
    expect(cases["fails <&>"]!.failure!["#"]).toMatch(/^input: \{"stdin":"b"\}\n/);
    expect(xml).toContain('<property name="input" value="{&quot;stdin&quot;:&quot;spin&quot;}"/>');
    expect(cases["times out"]!.error!["@type"]).toBe("timeout");
    expect(cases.invalid!.error!["@type"]).toBe("invalid_test_format");
  });
});
