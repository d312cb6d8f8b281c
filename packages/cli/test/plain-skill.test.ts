/**
 * A plain Agent Skill (SKILL.md, no assets/runner.json) run as a job by the real `skillrig run`, with the real
 * gemini CLI in the agent jail against the mock model: the prompt goes in as given, a `--file` lands at its path in
 * the workspace, the output is the agent's final answer text, and each `--skill-install` mode leaves exactly what it
 * says in the workspace and the context file (the skill's evals/ never there).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand } from "./processes.js";

const REPO = resolve(import.meta.dirname, "../../..");
const bin = join(REPO, "packages/cli/dist/bin.js");
const SKILL = "csv-summary";
const PROMPT = "Summarise data/sales.csv: how many rows are there?";

/** A project with the plain skill (and its evals/, which the agent must never get) and gemini on the mock model. */
function project(scenario: unknown, engine = "gemini", options: Record<string, unknown> = { approval_mode: "yolo" }): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-plain-"));
  const skill = join(dir, "skills", SKILL);
  mkdirSync(join(skill, "evals", "files"), { recursive: true });
  mkdirSync(join(skill, "scripts"), { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Summarises a CSV file. Use when asked about the rows or totals of a CSV.\n---\n\n# CSV summary\n\nCount the rows with {{ wc -l }} and say the number.\n`,
  );
  writeFileSync(join(skill, "scripts", "count.sh"), 'wc -l "$1"\n');
  writeFileSync(
    join(skill, "evals", "evals.json"),
    JSON.stringify({ skill_name: SKILL, evals: [{ id: 1, prompt: "x", expected_output: "SECRET-EXPECTED" }] }),
  );
  writeFileSync(join(dir, "sales.csv"), "region,total\nnorth,10\nsouth,32\n");
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [[join(REPO, `plugins/engine-${engine}/dist/index.js`), { mock_scenario: scenario, timeout_ms: 300000, ...options }]],
      skills: { roots: ["skills"] },
    }),
  );
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `skillrig <args>` as a child process (async, so several jobs run side by side). */
function skillrig(dir: string, args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

/** `skillrig run <the plain skill> --engine <engine> --prompt <PROMPT> ...more`. */
function runPrompt(dir: string, engine: string, more: string[]): Promise<Run> {
  return skillrig(dir, ["run", SKILL, "--engine", engine, "--prompt", PROMPT, ...more]);
}

function onlyRunFolder(runsDir: string): string {
  const [jobId, ...more] = readdirSync(runsDir);
  expect(more).toEqual([]);
  return join(runsDir, jobId!);
}

/** Every path under `root`, relative, sorted ("a/", "a/b"). */
function tree(root: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(`${rel}/`, ...tree(root, rel));
    else out.push(rel);
  }
  return out.sort();
}

describe("skillrig run on a plain Agent Skill", () => {
  it("runs the prompt as given on the jailed gemini CLI; the file is at its workspace path; the output is the final text", async () => {
    // The agent reads the file it was given (cat, in the jail) and answers with what it printed: the answer is real.
    const dir = project({ turns: [{ shell: { command: "cat data/sales.csv" } }, { echo_tool_output: true }] });
    const r = await runPrompt(dir, "gemini", ["--file", "data/sales.csv=./sales.csv", "--runs-dir", "runs", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.status).toBe("succeeded");
    // The answer is the text as gemini gave it back (its shell tool wraps the printout), not parsed as JSON.
    expect(typeof result.output).toBe("string");
    expect(result.output).toContain("region,total\nnorth,10\nsouth,32");
    expect(result.engine_confinement).toMatchObject({ isolation: "namespaces", network: "model-endpoint-only" });
    const run = onlyRunFolder(join(dir, "runs"));
    // The prompt as given: no template, no output contract, no demand for JSON added by the engine.
    expect(readFileSync(join(run, "prompt.md"), "utf8")).toBe(PROMPT);
    expect(existsSync(join(run, "logs", "gemini.prompt.md"))).toBe(false);
    expect(existsSync(join(run, "output.json"))).toBe(true);
    expect(result.warnings ?? []).not.toContainEqual(expect.stringMatching(/repaired/));
    // SKILL.md installed as written (its "{{ wc -l }}" is text, not a template), evals/ left out.
    const installed = join(run, "workspace", ".agents", "skills", SKILL);
    expect(readFileSync(join(installed, "SKILL.md"), "utf8")).toContain("Count the rows with {{ wc -l }}");
    expect(tree(installed)).toEqual(["SKILL.md", "scripts/", "scripts/count.sh"]);
    // The run folder's snapshot keeps evals/ (outside the jail's view); the context file names the skill (referenced).
    expect(existsSync(join(run, "skill", "evals", "evals.json"))).toBe(true);
    expect(readFileSync(join(run, "workspace", "GEMINI.md"), "utf8")).toContain(`.agents/skills/${SKILL}/SKILL.md`);

    // Without --json the answer text is printed as is.
    const plain = await skillrig(dir, [
      "run",
      SKILL,
      "--engine",
      "gemini",
      "--prompt-file",
      "sales.csv",
      "--file",
      "data/sales.csv=./sales.csv",
      "--no-record",
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("region,total\nnorth,10\nsouth,32\n");
    expect(plain.stdout.startsWith('"')).toBe(false);
  });

  it("--skill-install: referenced names the skill, discoverable installs it unnamed, none installs nothing; evals/ never", async () => {
    const dir = project({ turns: [{ text: "Three rows." }] });
    const modes = ["referenced", "discoverable", "none"] as const;
    const runs = await Promise.all(
      modes.map((mode) => runPrompt(dir, "gemini", ["--skill-install", mode, "--runs-dir", `runs-${mode}`, "--json"])),
    );
    const seen: Record<string, { skill: string[] | undefined; context: string }> = {};
    for (const [i, mode] of modes.entries()) {
      const r = runs[i]!;
      expect(r.code, `${mode}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).output).toBe("Three rows.");
      const run = onlyRunFolder(join(dir, `runs-${mode}`));
      const installed = join(run, "workspace", ".agents", "skills", SKILL);
      seen[mode] = {
        skill: existsSync(installed) ? tree(installed) : undefined,
        context: readFileSync(join(run, "workspace", "GEMINI.md"), "utf8"),
      };
      // Nothing of the evals anywhere in the workspace, whatever the mode.
      const everything = tree(join(run, "workspace"));
      expect(
        everything.filter((p) => p.includes("evals")),
        mode,
      ).toEqual([]);
      for (const p of everything.filter((p) => !p.endsWith("/")))
        expect(readFileSync(join(run, "workspace", p), "utf8"), `${mode}: ${p}`).not.toContain("SECRET-EXPECTED");
    }
    expect(seen.referenced!.skill).toEqual(["SKILL.md", "scripts/", "scripts/count.sh"]);
    expect(seen.discoverable!.skill).toEqual(["SKILL.md", "scripts/", "scripts/count.sh"]);
    expect(seen.none!.skill).toBeUndefined();
    expect(seen.referenced!.context).toContain(`.agents/skills/${SKILL}/SKILL.md`);
    for (const mode of ["discoverable", "none"]) {
      const context = seen[mode]!.context;
      expect(context, mode).not.toContain(SKILL);
      // The working directory's path (the run folder's name) does not name the skill either.
      expect(onlyRunFolder(join(dir, `runs-${mode}`)), mode).not.toContain(SKILL);
      expect(context, mode).not.toContain(".agents");
      expect(context, mode).toContain("Work without asking questions");
    }
  });

  it.each([
    ["codex", {}],
    ["claude", { retries: 0 }],
  ])("%s: the answer is the final text, with no output schema and no repair turn", async (engine, options) => {
    // Text a JSON-minded engine path would refuse or try to repair: not JSON, with braces in it.
    const answer = "Three rows {north, south} and a header.";
    const dir = project({ turns: [{ text: answer }] }, engine, options);
    const r = await runPrompt(dir, engine, ["--runs-dir", "runs", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.output).toBe(answer);
    expect(result.warnings ?? []).not.toContainEqual(expect.stringMatching(/repair/));
    const run = onlyRunFolder(join(dir, "runs"));
    // No output schema handed to the CLI (codex writes the one it passes with --output-schema into its folder).
    expect(existsSync(join(run, "engine", engine, "output-schema.json"))).toBe(false);
    expect(existsSync(join(run, "output.json"))).toBe(true);
  });

  it("refuses bad requests before anything runs, naming the field", async () => {
    const dir = project({ turns: [{ text: "unused" }] });
    const run = async (args: string[]) => {
      const r = await runCommand(
        process.execPath,
        [bin, "run", SKILL, "--engine", "gemini", "--runs-dir", "runs", "--json", ...args],
        dir,
        { PATH: process.env.PATH ?? "", HOME: dir },
        { inherit: false },
      );
      return { code: r.code, error: JSON.parse(r.stdout || r.stderr).error ?? JSON.parse(r.stdout || r.stderr) };
    };
    const missing = await run([]);
    expect(missing.code).toBe(2);
    expect(missing.error).toMatchObject({ code: "input_invalid", pointer: "/prompt", field: "prompt" });
    expect(missing.error.message).toContain("plain Agent Skill");
    for (const key of ["../x", "/etc/x", `.agents/skills/${SKILL}/SKILL.md`]) {
      const bad = await run(["--prompt", PROMPT, "--file", `${key}=./sales.csv`]);
      expect(bad.code, key).toBe(2);
      expect(bad.error, key).toMatchObject({ code: "input_invalid", field: key });
      expect(bad.error.message, key).toContain(`"${key}"`);
    }
    const inline = await run(["--prompt", PROMPT, "--input", "x=1"]);
    expect(inline.code).toBe(2);
    expect(inline.error).toMatchObject({ pointer: "/input", field: "input" });
    // Nothing ran: no run folder was made for any of them.
    expect(existsSync(join(dir, "runs"))).toBe(false);
  });

  it("refuses --prompt for a skill with assets/runner.json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-plain-"));
    writeFileSync(
      join(dir, "skillrig.config.json"),
      JSON.stringify({
        plugins: [[join(REPO, "plugins/engine-gemini/dist/index.js"), { mock_scenario: { turns: [{ text: "unused" }] } }]],
        skills: { roots: [join(REPO, "examples/hello-skill/skills")] },
      }),
    );
    const r = await runCommand(
      process.execPath,
      [bin, "run", "word-stats", "--engine", "gemini", "--prompt", "hi", "--runs-dir", "runs", "--json"],
      dir,
      { PATH: process.env.PATH ?? "", HOME: dir },
      { inherit: false },
    );
    expect(r.code, r.stderr).toBe(2);
    const error = JSON.parse(r.stdout || r.stderr).error ?? JSON.parse(r.stdout || r.stderr);
    expect(error).toMatchObject({ code: "input_invalid", pointer: "/prompt", field: "prompt" });
    expect(error.message).toContain("renders its own prompt");
  });

  it("skills validate accepts a plain skill and says what kind it is", async () => {
    const dir = project({ turns: [{ text: "unused" }] });
    const r = await runCommand(
      process.execPath,
      [bin, "skills", "validate", join(dir, "skills", SKILL), "--json"],
      dir,
      { PATH: process.env.PATH ?? "", HOME: dir },
      { inherit: false },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).skills).toEqual([expect.objectContaining({ id: SKILL, kind: "plain", valid: true, errors: [] })]);
    // A plain skill whose front matter lacks the specification's description does not load.
    writeFileSync(join(dir, "skills", SKILL, "SKILL.md"), `---\nname: ${SKILL}\n---\nbody\n`);
    const bad = await runCommand(
      process.execPath,
      [bin, "skills", "validate", join(dir, "skills", SKILL), "--json"],
      dir,
      { PATH: process.env.PATH ?? "", HOME: dir },
      { inherit: false },
    );
    expect(bad.code).toBe(2);
    expect(JSON.stringify(JSON.parse(bad.stdout).skills[0].errors)).toContain("description");
  });
});
