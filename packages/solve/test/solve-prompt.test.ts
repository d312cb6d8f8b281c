/**
 * The prompt an engine gets carries the task's description, deliverable type, entrypoint and public examples,
 * and never a hidden test: rendered by the real skills package (runJob --dry-run) from the shipped solve skill.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type Task } from "@skillrig/core";
import { loadSkill, runJob, skillProtocolPlugin } from "@skillrig/skills";
import { prepareSolveSkill, SOLVE_SKILL_DIR, solveInputs } from "@skillrig/solve";

const task: Task = {
  contract_version: "1.0",
  task_id: "csv-pick",
  deliverable_type: "cli",
  entrypoint: "pick.py",
  description: "Print the column named by --col of the CSV file --in, one value per line.",
  public_examples_preview: [
    {
      name: "public one",
      input: { argv: ["--in", "a.csv", "--col", "PUBLIC_COL"], files: { "a.csv": "PUBLIC_COL\nvisible-value\n" } },
      expected: { stdout: "visible-value\n" },
    },
  ],
  tests: [
    {
      name: "secret-case-name",
      input: { argv: ["--in", "h.csv", "--col", "HIDDEN_COL_7f3a"], files: { "h.csv": "HIDDEN_COL_7f3a\nhidden-value-91c2\n" } },
      expected: { stdout: "HIDDEN_EXPECTED_55e1\n" },
    },
  ],
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-prompt-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("solve skill prompt", () => {
  it("the shipped skill loads and declares the deliverable as an artifact", () => {
    const skill = loadSkill(SOLVE_SKILL_DIR);
    expect(skill.id).toBe("solve-task");
    expect(skill.artifacts).toEqual([expect.objectContaining({ field: "deliverable", filename: "solution.py", required: true })]);
  });

  it("names the entrypoint file as the artifact for a cli task", async () => {
    const skill = loadSkill(await prepareSolveSkill(new Runner(), task, join(dir, "cli")));
    expect(skill.artifacts[0]).toMatchObject({ field: "deliverable", filename: "pick.py" });
  });

  it("inputs carry no hidden case", () => {
    const text = JSON.stringify(solveInputs(new Runner(), task));
    expect(text).toContain("PUBLIC_COL");
    for (const secret of ["HIDDEN_COL_7f3a", "hidden-value-91c2", "HIDDEN_EXPECTED_55e1", "secret-case-name"])
      expect(text).not.toContain(secret);
  });

  for (const engine of ["gemini", "codex"]) {
    it(`renders description, type, entrypoint and public examples for ${engine}, and no hidden test`, async () => {
      const runner = new Runner({ cwd: dir }).use(skillProtocolPlugin());
      const skill = loadSkill(await prepareSolveSkill(runner, task, join(dir, engine)));
      const result = await runJob(
        runner,
        { skill_id: skill.id, engine, input: solveInputs(runner, task), parameter: {}, options: { dry_run: true } },
        { skill, runsDir: join(dir, "runs") },
      );
      expect(result.error).toBeUndefined();
      expect(result.status).toBe("succeeded");
      const skillMd = await readFile(join(result.run_dir, "SKILL.patched.md"), "utf8");
      const seen = `${result.prompt}\n${skillMd}`;
      expect(result.prompt).toContain("csv-pick");
      expect(result.prompt).toContain("pick.py");
      expect(skillMd).toContain(task.description);
      expect(skillMd).toContain("**cli**");
      expect(skillMd).toContain("python3 pick.py <argv...>");
      expect(skillMd).toContain("public one");
      expect(skillMd).toContain("visible-value");
      for (const secret of ["HIDDEN_COL_7f3a", "hidden-value-91c2", "HIDDEN_EXPECTED_55e1", "secret-case-name"])
        expect(seen).not.toContain(secret);
    });
  }
});
