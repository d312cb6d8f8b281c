/** `skillrig skills ...` and `skillrig run ...` through the built CLI binary, as a user runs them. */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { FIXTURE_SKILLS, makeSkill, tempDir, writeTree } from "./support/helpers.js";

const BIN = resolve(import.meta.dirname, "../../cli/dist/bin.js");
const EXAMPLE = resolve(import.meta.dirname, "../../../examples/hello-skill");
const SCRIPT_ENGINE_PLUGIN = resolve(import.meta.dirname, "support/script-engine.mjs");

/**
 * The CLI to its end, asynchronously: a skill job run with spawnSync holds the test worker's event loop, and on a
 * loaded machine vitest's RPC to it times out ("Timeout calling onTaskUpdate") though the test passed.
 */
async function skillrig(args: string[], cwd: string) {
  const r = await execa(process.execPath, [BIN, ...args], { cwd, reject: false, stripFinalNewline: false });
  return { code: r.exitCode ?? null, stdout: r.stdout, stderr: r.stderr };
}

/** A project whose config lists the fixture skills and the test engine with `script` as its agent. */
function project(script = 'print("{}")'): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({ skills: { roots: [FIXTURE_SKILLS] }, plugins: [[SCRIPT_ENGINE_PLUGIN, { script }]] }),
  );
  return dir;
}

describe("skillrig skills", () => {
  it("list shows the packages of the configured roots", async () => {
    const r = await skillrig(["skills", "list"], EXAMPLE);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("word-stats@1.0.0  Word statistics  [gemini, codex]");
    const json = JSON.parse((await skillrig(["--json", "skills", "list"], project())).stdout);
    expect(json.map((s: { id: string }) => s.id)).toContain("demo-prime-number");
  });

  it("show prints inputs, parameters and artifacts", async () => {
    const r = await skillrig(["skills", "show", "demo-prime-number"], project());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("input_file (file, required, .txt .md .json)");
    expect(r.stdout).toContain("divisor (integer, required)");
    expect(r.stdout).toContain("primes_file_path -> primes.md (role primes_list, required)");
    const missing = await skillrig(["skills", "show", "no-such-skill"], project());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error[skill_not_found]: no skill "no-such-skill"');
  });

  it("validate passes on the fixtures (with warnings) and exits 2 listing every problem of a broken package", async () => {
    const ok = await skillrig(["skills", "validate", FIXTURE_SKILLS], tempDir());
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("9 of 9 skill package(s) valid");
    expect(ok.stdout).toContain("warning: ");
    const root = tempDir();
    const dir = makeSkill(root, "broken", { runner: { id: "Broken!", schemas: { input: "/etc/passwd" } } });
    const bad = await skillrig(["skills", "validate", dir, join(FIXTURE_SKILLS, "demo-auto-skill")], root);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain("FAIL ");
    expect(bad.stdout).toMatch(/error: broken\/assets\/runner\.json \/id: /);
    expect(bad.stdout).toMatch(/error: broken\/assets\/runner\.json \/schemas\/input: /);
    expect(bad.stdout).toContain("ok   demo-auto-skill");
    expect(bad.stdout).toContain("1 of 2 skill package(s) valid");
  });

  it("validate says which problems are the Agent Skills specification's and which are skillrig's own (text and --json)", async () => {
    const root = tempDir();
    const dir = makeSkill(root, "my_skill", {
      skillMd: "---\nname: my_skill\ndescription: d\nauthor: me\n---\n\n# body\n",
      runner: { id: "my_skill", schemas: { output: "assets/nope.json" } },
    });
    const text = await skillrig(["skills", "validate", dir], root);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain("FAIL ");
    expect(text.stdout).toMatch(
      /error: my_skill\/SKILL\.md \/author: front matter field "author" is not one of .* \[Agent Skills spec: unknown-field\]/,
    );
    expect(text.stdout).toMatch(
      /error: my_skill\/SKILL\.md \/name: name "my_skill" may contain only .* \[Agent Skills spec: name-characters\]/,
    );
    expect(text.stdout).toMatch(
      /error: my_skill\/assets\/runner\.json \/schemas\/output: names assets\/nope\.json, which does not exist \[skillrig\]/,
    );

    const json = JSON.parse((await skillrig(["--json", "skills", "validate", dir], root)).stdout);
    expect(json.valid).toBe(false);
    const errors = json.skills[0].errors as Array<{ pointer: string; source: string; rule?: string }>;
    expect(errors.map((e) => `${e.source} ${e.pointer} ${e.rule ?? ""}`.trim())).toEqual([
      "skillrig /schemas/output",
      "agent-skills-spec /author unknown-field",
      "agent-skills-spec /name name-characters",
    ]);
  });

  it("validate fails on a skill that breaks only the specification, which still runs as a job", async () => {
    const root = tempDir();
    const dir = makeSkill(root, "portable", { skillMd: "---\nname: portable\ndescription: d\nmetadata:\n  version: 2\n---\n\n# body\n" });
    const r = await skillrig(["skills", "validate", dir], root);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/error: portable\/SKILL\.md \/metadata\/version: .*\[Agent Skills spec: metadata-value\]/);
    expect(r.stdout).toContain("0 of 1 skill package(s) valid");
    const dry = await skillrig(["run", dir, "--engine", "gemini", "--dry-run"], root);
    expect(dry.code, dry.stderr).toBe(0);
  });

  it("list shows a skill that breaks only the specification as runnable but not valid", async () => {
    const root = tempDir();
    writeFileSync(join(root, "skillrig.config.json"), JSON.stringify({ skills: { roots: ["skills"] } }));
    makeSkill(join(root, "skills"), "portable", { skillMd: "---\nname: portable\ndescription: d\nauthor: me\n---\n\n# body\n" });
    makeSkill(join(root, "skills"), "fine");
    const r = await skillrig(["skills", "list"], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/portable {2}Test portable\n {4}d\n {4}\(runs, but not valid: 1 problem\(s\); run: skillrig skills validate /);
    const json = JSON.parse((await skillrig(["--json", "skills", "list"], root)).stdout);
    expect(json.map((s: { id: string; valid: boolean }) => `${s.id} ${s.valid}`)).toEqual(["fine true", "portable false"]);
  });
});

describe("skillrig run", () => {
  it("--dry-run on demo-prime-number with an uploaded input_file prints the resolved input, parameters and prompt", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "numbers.md"), "4\n9\n");
    const r = await skillrig(
      [
        "run",
        join(FIXTURE_SKILLS, "demo-prime-number"),
        "--engine",
        "gemini",
        "--file",
        "input_file=numbers.md",
        "--param",
        "divisor=3",
        "--dry-run",
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/== input ==\n\{\n {2}"input_file": ".*\/uploads\/input_file"\n\}/);
    expect(r.stdout).toContain('== parameter ==\n{\n  "divisor": 3\n}');
    expect(r.stdout).toContain("== prompt (default template) ==");
    expect(r.stdout).toMatch(/# Inputs\n- input_file: \S+\/uploads\/input_file\n\n# Parameters\n- divisor: 3\n/);
    expect(r.stderr).toContain("{{ input.divisor }}");
  });

  it("exits 2 with input_missing_file when the upload is missing, and names uploads/<field>", async () => {
    const r = await skillrig(["run", "demo-bad-input", "--engine", "script"], project());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error[input_missing_file]");
    expect(r.stderr).toContain("uploads/input_file does not exist");
  });

  it("exits 0 on a succeeded job and prints the output, 1 on a failed one", async () => {
    const ok = await skillrig(["--json", "run", "demo-bad-output", "--engine", "script"], project('print(\'{"result": "fine"}\')'));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: "succeeded", output: { result: "fine" } });
    const failed = await skillrig(["run", "demo-bad-output", "--engine", "script"], project('print(\'{"message": "hi"}\')'));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("error[schema_violation]: output /result is required");
  });

  it("parses values as JSON when they parse, keeps text for string fields, and refuses unknown keys", async () => {
    const dir = project();
    const r = await skillrig(["--json", "run", "demo-bible-verse", "--engine", "script", "--param", "language=123", "--dry-run"], dir);
    expect(JSON.parse(r.stdout).parameter).toEqual({ language: "123" });
    const bad = await skillrig(
      ["run", "demo-prime-number", "--engine", "script", "--param", "divisor=1.5", "--input", "divisor=2", "--dry-run"],
      dir,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"divisor" is a parameter, not an input');
    expect(bad.stderr).toContain("/parameter/divisor: parameter /divisor must be integer");
    const noEq = await skillrig(["run", "demo-prime-number", "--engine", "script", "--param", "divisor"], dir);
    expect(noEq.code).toBe(2);
    expect(noEq.stderr).toContain("--param divisor: expected key=value");
  });

  it("with no skill named, runs the config's run section (the example project)", async () => {
    const r = await skillrig(["run", "--dry-run"], EXAMPLE);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("- top: 5\n- min_length: 1");
    expect(r.stdout).toMatch(/- text: \S+\/uploads\/text/);
    const none = await skillrig(["run"], tempDir());
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('add a "run" section');
  });

  it("exits 2 when no plugin handles the engine", async () => {
    const dir = tempDir();
    writeTree(dir, { "skillrig.config.json": { skills: { roots: [FIXTURE_SKILLS] } } });
    const r = await skillrig(["run", "demo-auto-skill", "--engine", "nosuch"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error[engine_not_found]: no plugin handles engine "nosuch"');
  });

  it("streams engine events to stderr and reports artifacts and the run folder", async () => {
    const agent =
      'open("result_artifact.md","w").write("# done\\n"); print("working"); print(\'{"result_artifact": "result_artifact.md"}\')';
    const r = await skillrig(["run", "demo-missing-artifacts", "--engine", "script"], project(agent));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("[assistant] working");
    const artifactLine = r.stderr.split("\n").find((l) => l.startsWith("artifact result_artifact (result_artifact): "));
    expect(readFileSync(artifactLine!.split(": ")[1]!, "utf8")).toBe("# done\n");
  });
});
