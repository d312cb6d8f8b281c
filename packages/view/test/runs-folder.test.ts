import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanRuns, folderSafeName, listRunRecords, parseAge, readRunRecord, writeRunRecord } from "@skillrig/view";
import { writeFixtureRuns } from "./support/fixture-runs.js";

const temp = () => mkdtempSync(join(tmpdir(), "skillrig-runs-"));
const DAY = 86_400_000;

describe("the runs folder", () => {
  it("writes a record and its report, and lists every shape newest first", async () => {
    const dir = temp();
    const ids = await writeFixtureRuns(dir);
    const runs = await listRunRecords(dir);
    expect(runs.map((r) => r.id)).toEqual([ids.test, ids.suite, ids.solve, ids.job]);
    const test = runs[0]!;
    expect(test).toMatchObject({
      kind: "test",
      name: "parse-numbers",
      status: "failed",
      passed: 1,
      total: 3,
      pass_rate: 0.3333,
      report: "report.json",
    });
    expect(test.id).toMatch(/^20261121T090000Z-test-parse-numbers-[0-9a-f]{6}$/);
    expect(JSON.parse(readFileSync(join(dir, test.id, "report.json"), "utf8")).task_id).toBe("parse-numbers");
    expect(runs[3]).toMatchObject({ kind: "run", name: "word-report", report: "result.json", engines: ["gemini"] });
  });

  it("lists a skill job folder without a record from its result.json, and skips folders that hold no run", async () => {
    const dir = temp();
    const job = join(dir, "20261101T000000Z-old-job-aaaaaa");
    mkdirSync(job);
    writeFileSync(
      join(job, "result.json"),
      JSON.stringify({
        skill_id: "old-job",
        engine: "codex",
        status: "failed",
        timings: { started_at: "2026-11-01T00:00:00Z", duration_ms: 5 },
      }),
    );
    mkdirSync(join(dir, "scratch"));
    mkdirSync(join(dir, "half-written"));
    writeFileSync(join(dir, "half-written", "record.json"), '{"format": "skillrig-run-rec');
    mkdirSync(join(dir, "tampered"));
    writeFileSync(
      join(dir, "tampered", "record.json"),
      JSON.stringify({ format: "skillrig-run-record", kind: "rm -rf", name: "x", started_at: "now", report: "r" }),
    );
    const runs = await listRunRecords(dir);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: "run", name: "old-job", status: "failed", pass_rate: 0, engines: ["codex"] });
    expect(await listRunRecords(join(dir, "missing"))).toEqual([]);
  });

  it("names folders safely whatever the task id holds", async () => {
    expect(folderSafeName("../../etc/passwd")).toBe("etc-passwd");
    expect(folderSafeName("a b/c")).toBe("a-b-c");
    expect(folderSafeName("")).toBe("unnamed");
    const dir = temp();
    const written = await writeRunRecord(
      dir,
      { kind: "test", name: "../escape", startedAt: new Date(), durationMs: 1, status: "passed", passed: 1, total: 1 },
      {},
    );
    expect(written.startsWith(`${dir}/`)).toBe(true);
    expect(await readRunRecord(dir, written.split("/").pop()!)).toBeDefined();
  });

  it("parses ages and refuses anything else", () => {
    expect(parseAge("7d")).toBe(7 * DAY);
    expect(parseAge("12h")).toBe(12 * 3_600_000);
    expect(parseAge("2w")).toBe(14 * DAY);
    expect(parseAge("30m")).toBe(1_800_000);
    for (const bad of ["7", "d", "-1d", "7 days", "1y"]) expect(parseAge(bad)).toBeUndefined();
  });

  it("cleans runs and cached Python environments older than the age, and leaves a building environment alone", async () => {
    const dir = temp();
    const ids = await writeFixtureRuns(dir);
    const envs = temp();
    const old = (path: string) => utimesSync(path, new Date(Date.now() - 30 * DAY), new Date(Date.now() - 30 * DAY));
    mkdirSync(join(envs, "py3.11-old"));
    writeFileSync(join(envs, "py3.11-old", ".skillrig-ready"), "{}");
    old(join(envs, "py3.11-old", ".skillrig-ready"));
    mkdirSync(join(envs, "py3.11-fresh"));
    writeFileSync(join(envs, "py3.11-fresh", ".skillrig-ready"), "{}");
    mkdirSync(join(envs, "py3.11-building"));
    old(join(envs, "py3.11-building"));
    mkdirSync(join(envs, "py3.11-building.lock"));
    const now = new Date("2026-11-21T20:00:00Z");
    const preview = await cleanRuns(dir, { olderThanMs: 1.2 * DAY, pythonEnvDir: envs, dryRun: true, now });
    expect(preview.runs.map((p) => p.split("/").pop()).sort()).toEqual([ids.solve, ids.job].sort());
    expect(existsSync(join(dir, ids.solve))).toBe(true);
    const removed = await cleanRuns(dir, { olderThanMs: 1.2 * DAY, pythonEnvDir: envs, now });
    expect(removed.runs).toHaveLength(2);
    expect(removed.pythonEnvs).toEqual([join(envs, "py3.11-old")]);
    expect((await listRunRecords(dir)).map((r) => r.id)).toEqual([ids.test, ids.suite]);
    expect(existsSync(join(envs, "py3.11-fresh"))).toBe(true);
    expect(existsSync(join(envs, "py3.11-building"))).toBe(true);
  });
});
