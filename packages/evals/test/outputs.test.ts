/**
 * A run's outputs/ is copied from a workspace the agent controlled. Each hostile entry below states the verdict
 * it must get: left out (and listed with why) or copied as a plain file of the agent's, never trusted.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyOutputs } from "../src/outputs.js";
import { agentName, storedName, storedPath } from "../src/result-names.js";

let root: string;
let workspace: string;
let dest: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "evals-outputs-"));
  workspace = join(root, "workspace");
  dest = join(root, "run", "outputs");
  mkdirSync(join(workspace, "report"), { recursive: true });
  writeFileSync(join(workspace, "report", "summary.md"), "# Top months\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function listTree(dir: string, rel = ""): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      return lstatSync(path).isDirectory() ? [`${r}/`, ...listTree(path, r)] : [r];
    });
}

describe("copyOutputs against a hostile workspace", () => {
  it("links (to /etc/passwd, to the skill's evals/), a fifo, a huge file: left out and listed; nothing outside is read", () => {
    const skillEvals = join(root, "skill", "evals");
    mkdirSync(skillEvals, { recursive: true });
    writeFileSync(join(skillEvals, "evals.json"), '{"secret": "expected output"}');
    symlinkSync("/etc/passwd", join(workspace, "passwd"));
    symlinkSync(skillEvals, join(workspace, "report", "evals"));
    symlinkSync(join(skillEvals, "evals.json"), join(workspace, "answers.json"));
    execFileSync("mkfifo", [join(workspace, "pipe")]);
    writeFileSync(join(workspace, "huge.bin"), Buffer.alloc(2048, 1));

    const result = copyOutputs(workspace, dest, { capBytes: 1024 });
    // Verdict: only the agent's regular files within the cap are copied.
    expect(listTree(dest)).toEqual(["report/", "report/summary.md"]);
    expect(readFileSync(join(dest, "report", "summary.md"), "utf8")).toBe("# Top months\n");
    expect(result.skipped).toEqual([
      { path: "answers.json", reason: "a symbolic link (links are never followed)" },
      { path: "huge.bin", reason: "over the outputs size cap (2048 bytes; 1024 bytes in all per run)" },
      { path: "passwd", reason: "a symbolic link (links are never followed)" },
      { path: "pipe", reason: "a special file (fifo), not a regular file" },
      { path: "report/evals", reason: "a symbolic link (links are never followed)" },
    ]);
    expect(result.files).toBe(1);
    expect(result.bytes).toBe(13);
  });

  it("the cap is over the whole run: files past it are listed, the ones before it copied", () => {
    for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(workspace, name), "x".repeat(400));
    const result = copyOutputs(workspace, dest, { capBytes: 1000 });
    expect(listTree(dest)).toEqual(["a.txt", "b.txt", "report/", "report/summary.md"]);
    expect(result.skipped.map((s) => s.path)).toEqual(["c.txt"]);
  });

  it("a file the agent named grading.json (or answer.json) stays inside outputs/: never the run's own", () => {
    writeFileSync(join(workspace, "grading.json"), JSON.stringify({ summary: { pass_rate: 1 } }));
    writeFileSync(join(workspace, "answer.json"), "{}");
    copyOutputs(workspace, dest);
    // Verdict: copied as the agent's file, in outputs/, and nothing is written beside outputs/.
    expect(existsSync(join(dest, "grading.json"))).toBe(true);
    expect(readdirSync(join(root, "run"))).toEqual(["outputs"]);
  });

  it("with storedName, the agent's result-named files are kept under a name no reader takes for a result, and restored exactly", () => {
    mkdirSync(join(workspace, "deep", "timing.json"), { recursive: true });
    writeFileSync(join(workspace, "deep", "timing.json", "x.txt"), "x");
    writeFileSync(join(workspace, "grading.json"), "forged");
    writeFileSync(join(workspace, "grading.json.from-agent"), "the agent's own name");
    copyOutputs(workspace, dest, { rename: storedName });
    expect(listTree(dest).filter((p) => !p.startsWith("report"))).toEqual([
      "deep/",
      "deep/timing.json.from-agent/",
      "deep/timing.json.from-agent/x.txt",
      "grading.json.from-agent",
      "grading.json.from-agent.from-agent",
    ]);
    expect(storedPath("deep/timing.json/x.txt")).toBe("deep/timing.json.from-agent/x.txt");
    const back = join(root, "back");
    copyOutputs(dest, back, { rename: agentName });
    expect(readFileSync(join(back, "grading.json"), "utf8")).toBe("forged");
    expect(readFileSync(join(back, "grading.json.from-agent"), "utf8")).toBe("the agent's own name");
    expect(existsSync(join(back, "deep", "timing.json", "x.txt"))).toBe(true);
  });

  it("the skill's installed copies and skillrig's answer channel are left out, the context file only when unchanged", () => {
    mkdirSync(join(workspace, ".skillrig"));
    writeFileSync(join(workspace, ".skillrig", "result.json"), "{}");
    for (const dir of [".agents/skills/top-months", ".claude/skills/top-months", ".gemini/skills/x"]) {
      mkdirSync(join(workspace, dir), { recursive: true });
      writeFileSync(join(workspace, dir, "SKILL.md"), "skill");
    }
    mkdirSync(join(workspace, ".agents", "notes"), { recursive: true });
    writeFileSync(join(workspace, ".agents", "notes", "n.md"), "agent's own");
    writeFileSync(join(workspace, "GEMINI.md"), "# skillrig job j\n");
    writeFileSync(join(workspace, "AGENTS.md"), "# skillrig job j\nand the agent's edit\n");
    copyOutputs(workspace, dest, {
      writtenBySkillrig: [
        { path: "GEMINI.md", text: "# skillrig job j\n" },
        { path: "AGENTS.md", text: "# skillrig job j\n" },
      ],
    });
    // .claude/ and .gemini/ held only the skill: not kept as empty folders; .agents/ keeps the agent's notes.
    expect(listTree(dest)).toEqual([".agents/", ".agents/notes/", ".agents/notes/n.md", "AGENTS.md", "report/", "report/summary.md"]);
  });

  it("no workspace: an empty outputs/ and one entry saying so", () => {
    const result = copyOutputs(join(root, "none"), dest);
    expect(readdirSync(dest)).toEqual([]);
    expect(result.skipped).toEqual([{ path: ".", reason: "the job left no workspace folder" }]);
  });
});
