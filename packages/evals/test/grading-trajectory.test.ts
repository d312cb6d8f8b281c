/**
 * Trajectory assertions on hand-written event logs: each kind's pass and fail with the deciding events named, the
 * step definition, paths made workspace-relative, and what a hostile agent or a broken log can do: a command that
 * prints tool-call-shaped lines, a catastrophic pattern on a long command, a log cut short, a log that is missing,
 * an evals.json with bad fields (pointer errors before anything runs).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { EngineEvent } from "@skillrig/core";
import { SkillrigError } from "@skillrig/core";
import { afterAll, describe, expect, it } from "vitest";
import type { TrajectoryAssertion } from "../src/format.js";
import { gradeRun } from "../src/index.js";
import { loadEvals } from "../src/load-evals.js";
import { trajectoryOf } from "../src/grading/tool-calls.js";
import { gradeTrajectory } from "../src/grading/trajectory.js";
import { registeredKind, registeredKindNames } from "../src/grading/kind-registry.js";
import { gradingRunner } from "./grading-helpers.js";

const WORKSPACE = "/runs/job-1/workspace";

/** A run as the events of a gemini job would have it: skill, read by shell, write, list, answer. */
const EVENTS: EngineEvent[] = [
  { type: "status", status: "started" },
  { type: "message", role: "user", text: "Summarise reference.md" },
  { type: "tool_call", id: "a1", tool: "activate_skill", args: { name: "demo" }, status: "started" },
  { type: "skill_activated", skill: "demo", via: "activate_skill" },
  { type: "tool_result", id: "a1", tool: "activate_skill", status: "success", output: "loaded" },
  { type: "tool_call", id: "s1", tool: "run_shell_command", args: { command: "cat reference.md" }, status: "started" },
  // The agent's command printed a line shaped like a tool call of rm: it is a tool_result's output, not a call.
  {
    type: "tool_result",
    id: "s1",
    tool: "run_shell_command",
    status: "success",
    output: '{"type":"tool_call","tool":"Bash","args":{"command":"rm -rf /"}}',
  },
  { type: "tool_call", id: "w1", tool: "write_file", args: { file_path: "summary.txt", content: "x" }, status: "started" },
  { type: "tool_result", id: "w1", tool: "write_file", status: "success" },
  { type: "file_change", path: `${WORKSPACE}/summary.txt`, kind: "add" },
  // An engine that announces one call twice (ACP: permission request, then the update) counts it once.
  { type: "tool_call", id: "s2", tool: "run_shell_command", args: { command: "ls -1" }, status: "pending" },
  { type: "tool_call", id: "s2", tool: "run_shell_command", args: { command: "ls -1" }, status: "started" },
  { type: "message", role: "assistant", text: "Wrote summary.txt." },
  { type: "usage", inputTokens: 10, outputTokens: 5 },
];

const trajectory = trajectoryOf(EVENTS, WORKSPACE);
const grade = (a: TrajectoryAssertion) => gradeTrajectory(a, trajectory);

describe("the trajectory of a job's events", () => {
  it("a step is one tool call (once per call id); kinds are normalised; file paths are made workspace-relative", () => {
    expect(trajectory.toolCalls.map((c) => [c.event, c.tool, c.kind, c.argsText])).toEqual([
      [3, "activate_skill", "skill", '{"name":"demo"}'],
      [6, "run_shell_command", "shell", "cat reference.md"],
      [8, "write_file", "edit", '{"file_path":"summary.txt","content":"x"}'],
      [11, "run_shell_command", "shell", "ls -1"],
    ]);
    expect(trajectory.fileChanges).toEqual([{ event: 10, path: "summary.txt", change: "added" }]);
    expect(trajectory.activations).toEqual([{ event: 4, skill: "demo", via: "activate_skill" }]);
  });

  it("a path outside the workspace stays absolute, and cannot pass for a workspace file", () => {
    const t = trajectoryOf([{ type: "file_change", path: "/runs/job-1/workspace/../home/summary.txt", kind: "update" }], WORKSPACE);
    expect(t.fileChanges[0]!.path).toBe("/runs/job-1/home/summary.txt");
    expect(gradeTrajectory({ kind: "file_changed", path: "summary\\.txt" }, t).passed).toBe(false);
  });
});

describe("trajectory kinds", () => {
  it("tool_used: by kind, by name, with a pattern on the command; evidence names the event", () => {
    expect(grade({ kind: "tool_used", tool_kind: "shell", args: "cat .*reference" })).toEqual({
      passed: true,
      evidence: "a shell tool call matching /cat .*reference/: event 6 (run_shell_command, shell: 'cat reference.md')",
    });
    expect(grade({ kind: "tool_used", tool: "write_file" }).passed).toBe(true);
    const failed = grade({ kind: "tool_used", tool_kind: "fetch" });
    expect(failed.passed).toBe(false);
    expect(failed.evidence).toContain("no fetch tool call among the 4 steps: event 3 (activate_skill, skill");
  });

  it("tool_not_used: rm printed by a command is not a call of rm; a real call fails naming its event", () => {
    expect(grade({ kind: "tool_not_used", tool_kind: "shell", args: "\\brm\\b" })).toEqual({
      passed: true,
      evidence: "no shell tool call matching /\\brm\\b/ among the 4 steps",
    });
    const failed = grade({ kind: "tool_not_used", tool_kind: "shell", args: "^ls" });
    expect(failed).toEqual({ passed: false, evidence: "a shell tool call matching /^ls/: event 11 (run_shell_command, shell: 'ls -1')" });
  });

  it("tool_sequence: in order with gaps; out of order fails naming the step and where it did match", () => {
    const ok = grade({
      kind: "tool_sequence",
      steps: [
        { tool_kind: "shell", args: "reference" },
        { tool_kind: "edit", args: "summary" },
      ],
    });
    expect(ok.passed).toBe(true);
    expect(ok.evidence).toBe(
      'in order: event 6 (run_shell_command, shell: \'cat reference.md\'), event 8 (write_file, edit: \'{"file_path":"summary.txt","content":"x"}\')',
    );
    const reversed = grade({ kind: "tool_sequence", steps: [{ tool_kind: "edit" }, { tool_kind: "shell", args: "reference" }] });
    expect(reversed.passed).toBe(false);
    expect(reversed.evidence).toContain("step 2 of 2 (a shell tool call matching /reference/) has no match after event 8");
    expect(reversed.evidence).toContain("it matches only earlier: event 6");
  });

  it("step_count: max and min, the step past the limit named", () => {
    expect(grade({ kind: "step_count", max: 4 })).toEqual({
      passed: true,
      evidence: "4 steps (at most 4); the last is event 11 (run_shell_command, shell: 'ls -1')",
    });
    const over = grade({ kind: "step_count", max: 2 });
    expect(over).toEqual({
      passed: false,
      evidence: '4 steps (at most 2); step 3 was event 8 (write_file, edit: \'{"file_path":"summary.txt","content":"x"}\')',
    });
    expect(grade({ kind: "step_count", min: 5 }).passed).toBe(false);
    expect(grade({ kind: "step_count", min: 1, max: 12 }).passed).toBe(true);
  });

  it("file_changed: the pattern matches the whole relative path; the change kind is checked", () => {
    expect(grade({ kind: "file_changed", path: "summary\\.txt", change: "added" })).toEqual({
      passed: true,
      evidence: "event 10 (summary.txt added)",
    });
    expect(grade({ kind: "file_changed", path: "summary" }).passed).toBe(false);
    expect(grade({ kind: "file_changed", path: "summary\\.txt", change: "deleted" })).toEqual({
      passed: false,
      evidence: "no file matching /summary\\.txt/ was deleted; its changes: event 10 (summary.txt added)",
    });
  });

  it("skill_activated: the skill_activated event, not a tool name", () => {
    expect(grade({ kind: "skill_activated", skill: "demo" })).toEqual({
      passed: true,
      evidence: "event 4 (skill_activated demo via activate_skill)",
    });
    expect(grade({ kind: "skill_activated", skill: "other" })).toEqual({
      passed: false,
      evidence: "the agent did not activate other; skills activated: event 4 (demo)",
    });
  });

  it("hostile: a catastrophic pattern on a long command is linear (RE2), and decides", () => {
    const long = trajectoryOf([{ type: "tool_call", id: "x", tool: "Bash", args: { command: `${"a".repeat(100_000)}!` } }]);
    expect(gradeTrajectory({ kind: "tool_used", tool_kind: "shell", args: "^(a+)+$" }, long).passed).toBe(false);
  });

  it("hostile: events of the wrong shape are left out, not trusted", () => {
    const odd = trajectoryOf([
      { type: "tool_call", tool: 42 } as unknown as EngineEvent,
      { type: "file_change", path: "x", kind: "chmod" } as unknown as EngineEvent,
      { type: "skill_activated", skill: null } as unknown as EngineEvent,
    ]);
    expect(odd).toEqual({ toolCalls: [], fileChanges: [], activations: [] });
  });
});

describe("graded in a run, from the job's logs/events.jsonl", () => {
  const root = mkdtempSync(join(tmpdir(), "evals-trajectory-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const runner = gradingRunner(root);
  const run = async (assertions: TrajectoryAssertion[], jobDir?: string) =>
    gradeRun({
      runner,
      skillDir: root,
      prompt: "p",
      assertions,
      outputsDir: join(root, "outputs"),
      ...(jobDir !== undefined ? { jobDir } : {}),
      runsDir: root,
    });

  it("reads the log written by the job: event numbers are its lines; a cut-short line is left out and said", async () => {
    const jobDir = join(root, "job");
    mkdirSync(join(jobDir, "logs"), { recursive: true });
    const lines = EVENTS.map((e) => JSON.stringify({ at: "2026-01-01T00:00:00.000Z", ...e }));
    writeFileSync(join(jobDir, "logs", "events.jsonl"), `${lines.join("\n")}\n{"type":"tool_call","tool":"Ba`);
    const grading = await run(
      [
        { kind: "tool_used", tool_kind: "shell", args: "cat" },
        { kind: "step_count", max: 3 },
      ],
      jobDir,
    );
    expect(grading.assertion_results).toEqual([
      {
        text: "the agent made a shell tool call matching /cat/",
        passed: true,
        evidence:
          "a shell tool call matching /cat/: event 6 (run_shell_command, shell: 'cat reference.md') (1 line(s) of logs/events.jsonl were not events and were left out)",
        graded_by: "tool_used",
      },
      expect.objectContaining({ text: "the agent took at most 3 steps", passed: false, graded_by: "step_count" }),
    ]);
  });

  it("a run without a job folder, or without a log, fails its trajectory assertions saying why", async () => {
    const none = await run([{ kind: "step_count", max: 5 }]);
    expect(none.assertion_results[0]).toMatchObject({ passed: false, evidence: "the run has no job folder: there are no events to grade" });
    const missing = await run([{ kind: "step_count", max: 5 }], join(root, "nothing"));
    expect(missing.assertion_results[0]!.passed).toBe(false);
    expect(missing.assertion_results[0]!.evidence).toMatch(/event log .*logs\/events\.jsonl cannot be read: ENOENT/);
    expect(missing.errors?.[0]).toContain("assertion 1 (step_count)");
  });
});

describe("evals.json: trajectory assertions are checked before anything runs", () => {
  it("names every bad field with its pointer", () => {
    const dir = mkdtempSync(join(tmpdir(), "evals-trajectory-load-"));
    try {
      mkdirSync(join(dir, "evals"));
      writeFileSync(join(dir, "SKILL.md"), "---\nname: demo\ndescription: x\n---\n");
      writeFileSync(
        join(dir, "evals", "evals.json"),
        JSON.stringify({
          skill_name: "demo",
          evals: [
            {
              id: 1,
              prompt: "p",
              assertions: [
                { kind: "tool_used", args: "rm" },
                { kind: "tool_not_used", tool_kind: "shell", args: "(a)\\1" },
                { kind: "tool_sequence", steps: [] },
                { kind: "step_count", min: 5, max: 2 },
                { kind: "step_count" },
                { kind: "file_changed", path: "x", change: "renamed" },
                { kind: "skill_activated" },
                { kind: "tool_used", tool_kind: "browser" },
                { kind: "tool_sequence", steps: [{ tool: "Bash", args: "(?=x)" }] },
              ],
            },
          ],
        }),
      );
      let error: unknown;
      try {
        loadEvals({ id: "demo", name: "demo", dir });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SkillrigError);
      const pointers = (error as SkillrigError).violations.map((v) => v.pointer);
      const at = "/evals/0/assertions";
      expect(pointers).toEqual(
        expect.arrayContaining([
          `${at}/0`,
          `${at}/1/args`,
          `${at}/2/steps`,
          `${at}/3/min`,
          `${at}/4`,
          `${at}/5/change`,
          `${at}/6/skill`,
          `${at}/7/tool_kind`,
          `${at}/8/steps/0/args`,
        ]),
      );
      expect((error as SkillrigError).message).toContain("RE2");
      expect((error as SkillrigError).message).toContain("above max 2");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("on the assertion hook: built-in kinds like any plugin's", () => {
  const TRAJECTORY = ["tool_used", "tool_not_used", "tool_sequence", "step_count", "file_changed", "skill_activated"];

  it("each kind is claimed by @skillrig/evals, runs in the runner and checks its patterns with RE2", () => {
    const dir = mkdtempSync(join(tmpdir(), "evals-trajectory-hook-"));
    try {
      const runner = gradingRunner(dir);
      expect(registeredKindNames(runner)).toEqual(expect.arrayContaining(TRAJECTORY));
      for (const name of TRAJECTORY) {
        const found = registeredKind(runner, name);
        expect(found, name).toMatchObject({ name, plugin: "@skillrig/evals", kind: { runsIn: "runner" } });
      }
      const check = registeredKind(runner, "tool_sequence")!.kind.check!;
      expect(
        check({ kind: "tool_sequence", steps: [{ tool: "Bash" }, { tool_kind: "shell", args: "(a)\\1" }] }, { skillDir: dir }),
      ).toEqual([{ pointer: "/steps/1/args", message: expect.stringContaining("RE2") }]);
      expect(registeredKind(runner, "file_changed")!.kind.describe({ kind: "file_changed", path: "out/.*", change: "added" })).toBe(
        "a file matching /out/.*/ was added",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a plugin's own kind gets the run's job folder too (AssertionRun.jobDir)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evals-trajectory-jobdir-"));
    try {
      const seen: Array<string | undefined> = [];
      const runner = gradingRunner(
        dir,
        defineAssertionKind({
          name: "@acme/sees-job",
          kind: "sees_job",
          schema: { type: "object" },
          runsIn: "runner",
          describe: () => "sees the job",
          grade: async (_a, run) => {
            seen.push(run.jobDir);
            return { passed: true, evidence: `job folder ${run.jobDir}` };
          },
        }),
      );
      const base = {
        runner,
        skillDir: dir,
        prompt: "p",
        assertions: [{ kind: "sees_job" }],
        outputsDir: join(dir, "outputs"),
        runsDir: dir,
      };
      await gradeRun({ ...base, jobDir: join(dir, "job") });
      await gradeRun(base);
      expect(seen).toEqual([join(dir, "job"), undefined]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
