/**
 * Issue 38, fail closed on vacuity: a report that ended early (`incomplete`: fewer verdicts than selected cases) is
 * recorded as an error, and `skillrig runs list` / `runs show` say so: never read as complete, never as a pass.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeRunRecord } from "@skillrig/view";
import { describeReport } from "../src/run-record.js";
import { skillrig } from "./cli-process.js";

const truncated = {
  kind: "skillrig-task-report",
  version: 1,
  task_id: "parse-int",
  deliverable_type: "function",
  // Every verdict it holds passed: read naively, a pass.
  summary: { total: 3, passed: 2, failed: 0, errored: 0, invalid: 0 },
  cases: [0, 1].map((index) => ({
    name: `c${index}`,
    index,
    status: "passed",
    duration_ms: 1,
    input: [],
    expected: 1,
    actual: 1,
    message: null,
  })),
  incomplete: { reason: "the oracle run on http://127.0.0.1:1 ended early: 1 of the 3 selected case(s) got no verdict", missing: 1 },
};

describe("a recorded report that ended early", () => {
  it("is recorded as error, and runs list and runs show say it is incomplete", async () => {
    expect(describeReport("test", truncated).status).toBe("error");
    // The same report without the field would be recorded by its counts (2 of 3: failed), never as passed either.
    const { incomplete: _incomplete, ...counted } = truncated;
    expect(describeReport("test", counted).status).toBe("failed");

    const dir = mkdtempSync(join(tmpdir(), "skillrig-incomplete-"));
    const runs = join(dir, "runs");
    const record = { kind: "test" as const, startedAt: new Date(), durationMs: 10, ...describeReport("test", truncated) };
    const folder = await writeRunRecord(runs, record, truncated);
    const id = folder.split("/").pop()!;
    const env = { SKILLRIG_RUNS_DIR: runs };
    const list = await skillrig(["runs", "list"], dir, env);
    expect(list.stdout).toMatch(/test\s+parse-int\s+-\s+error/);
    const show = await skillrig(["runs", "show", id], dir, env);
    expect(show.stdout).toContain("test parse-int: error");
    expect(show.stdout).toContain(
      "INCOMPLETE: the oracle run on http://127.0.0.1:1 ended early: 1 of the 3 selected case(s) got no verdict; not a pass",
    );
  });
});
