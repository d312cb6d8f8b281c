import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { compileSchema, type EngineEvent, type JobRequest, type JobResult, type JsonSchema } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import { SCRIPT_ENGINE } from "./support/script-engine.mjs";
import { makeSkill, tempDir, testRunner, writeTree } from "./support/helpers.js";

/** An agent that does demo-prime-number's work for real, using the skill's own check_primes.py. */
const PRIME_AGENT = String.raw`
import json, os, subprocess, sys
job = json.loads(os.environ["SKILLRIG_JOB"])
prompt = sys.stdin.read()
assert job["input"]["input_file"] in prompt, "the prompt names the uploaded file"
divisor = job["parameter"]["divisor"]
lines = [l.strip() for l in open(job["input"]["input_file"]) if l.strip()]
candidates, rows = [], []
for line in lines:
    try:
        n = int(line)
    except ValueError:
        rows.append({"original_line": line, "reason": "Invalid format"}); continue
    if n % divisor:
        rows.append({"original_line": line, "reason": "Not an integer"}); continue
    candidates.append(n // divisor)
json.dump(candidates, open("candidates.json", "w"))
skill_dir = job["context"]["skill_dir"]
checked = json.loads(subprocess.check_output([sys.executable, os.path.join(skill_dir, "scripts", "check_primes.py"), "candidates.json"]))
primes = sorted(int(k) for k, v in checked.items() if v["is_prime"])
open("primes.md", "w").write("\n".join("- %d" % p for p in primes) + "\n")
json.dump(rows + [{"parsed_integer": int(k), **v} for k, v in checked.items()], open("results.json", "w"))
print("checked %d candidates" % len(candidates))
run_dir = job["context"]["run_dir"]
print(json.dumps({"primes_file_path": run_dir + "/primes.md", "results_file_path": run_dir + "/results.json"}))
`;

function printAgent(output: unknown): string {
  return `import json\nprint(${JSON.stringify(JSON.stringify(output))})\n`;
}

function request(skill: string, extra: Partial<JobRequest> = {}): JobRequest {
  return { skill_id: skill, engine: SCRIPT_ENGINE, ...extra };
}

function withAgent(script: string, extra: Partial<JobRequest> = {}): Partial<JobRequest> {
  return { ...extra, options: { ...extra.options, engine: { script } } };
}

function numbersFile(dir: string, name = "numbers.md", content = "10\n14\n7\nabc\n26\n"): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** result.json as written, checked against the schema this package ships (`@skillrig/skills/job-result.schema.json`). */
const resultSchema = compileSchema(
  JSON.parse(readFileSync(join(import.meta.dirname, "../src/job-result.schema.json"), "utf8")) as JsonSchema,
);
function expectValidResultJson(result: JobResult) {
  expect(resultSchema.validate(JSON.parse(readFileSync(join(result.run_dir, "result.json"), "utf8")))).toEqual([]);
}

function expectFailed(result: JobResult, code: string) {
  expect(result.status, JSON.stringify(result.error)).toBe("failed");
  expect(result.error?.code).toBe(code);
}

describe("runJob on the fixture skills", () => {
  it("demo-prime-number runs end to end: upload, prompt, patched SKILL.md, engine, artifacts, run folder", async () => {
    const { runner, dir } = testRunner();
    const events: EngineEvent[] = [];
    runner.hooks.job.event.tap("test", (event) => {
      events.push(event);
    });
    const result = await runJob(
      runner,
      request("demo-prime-number", withAgent(PRIME_AGENT, { files: { input_file: numbersFile(dir) }, parameter: { divisor: 2 } })),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.artifacts.map((a) => [a.field, a.role, a.relativePath])).toEqual([
      ["primes_file_path", "primes_list", "artifacts/primes.md"],
      ["results_file_path", "analysis_results", "artifacts/results.json"],
    ]);
    // 10/2=5, 14/2=7, 7 rejected (odd), 26/2=13 -> all three candidates are prime
    expect(readFileSync(join(result.run_dir, "artifacts/primes.md"), "utf8")).toBe("- 5\n- 7\n- 13\n");
    const run = result.run_dir;
    for (const part of [
      "run.json",
      "uploads/input_file",
      "skill/SKILL.md",
      "skill/scripts/check_primes.py",
      "prompt.md",
      "SKILL.patched.md",
      "logs/events.jsonl",
      "output.json",
      "result.json",
    ]) {
      expect(existsSync(join(run, part)), part).toBe(true);
    }
    const runJson = JSON.parse(readFileSync(join(run, "run.json"), "utf8"));
    expect(runJson.uploads.input_file.original_name).toBe("numbers.md");
    // What the job really got, beside the request as sent: the file by its name and size, the parameters resolved.
    expect(runJson.resolved).toEqual({
      input: { input_file: "uploads/input_file" },
      parameter: { divisor: 2 },
      files: [{ field: "input_file", name: "numbers.md", bytes: "10\n14\n7\nabc\n26\n".length, path: "uploads/input_file" }],
    });
    expectValidResultJson(result);
    const patched = readFileSync(join(run, "workspace/.agents/skills/demo-prime-number/SKILL.md"), "utf8");
    expect(patched).toBe(readFileSync(join(run, "SKILL.patched.md"), "utf8"));
    expect(patched).toContain(`- \`${join(run, "uploads/input_file")}\`: Absolute path to the source markdown file.`);
    expect(patched).toContain("Divide the number by `2`");
    expect(patched).toContain(`\`primes_file_path\`: write \`${join(run, "workspace")}/primes.md\` (role: primes_list, required)`);
    expect(patched).toContain('"required": [\n    "primes_file_path",\n    "results_file_path"\n  ]');
    expect(patched).not.toContain("x-filename");
    expect(result.warnings?.some((w) => w.includes("{{ input.divisor }}"))).toBe(true);
    expect(events.filter((e) => e.type === "message").map((e) => (e as { text: string }).text)[0]).toBe("checked 3 candidates");
    expect(readFileSync(join(run, "logs/events.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(run, "result.json"), "utf8")).status).toBe("succeeded");
    expect(result.timings.engine_ms).toBeGreaterThan(0);
  });

  it("demo-bad-input without its upload fails with input_missing_file naming uploads/input_file, before any engine runs", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-bad-input", withAgent("open('ran', 'w')")));
    expectFailed(result, "input_missing_file");
    expectValidResultJson(result);
    expect(result.error?.message).toContain("uploads/input_file does not exist");
    expect(result.error?.file).toBe("uploads/input_file");
    expect(existsSync(join(result.run_dir, "workspace/ran"))).toBe(false);
    expect(result.timings.engine_ms).toBeUndefined();
    expect(result.skills_activated).toBeUndefined();
  });

  it("skills_activated: the distinct skills of the engine's skill_activated events, first seen first; [] when none", async () => {
    const { runner } = testRunner();
    const activate = (skill: string): EngineEvent => ({ type: "skill_activated", skill, via: "Skill" });
    // The events go through the job's emit, as an engine's do (here before the engine runs; the script engine cannot).
    runner.hooks.job.resolveInput.tapPromise({ name: "activations", stage: -200 }, async (resolution, work) => {
      if (work.engineOptions.activate === true) for (const skill of ["b", "a", "b"]) work.emit(activate(skill));
      return resolution;
    });
    const agent = printAgent({ message: "hello", result: "ok" });
    const activated = await runJob(runner, request("demo-bad-output", { options: { engine: { script: agent, activate: true } } }));
    expect(activated.skills_activated).toEqual(["b", "a"]);
    expect(JSON.parse(readFileSync(join(activated.run_dir, "result.json"), "utf8")).skills_activated).toEqual(["b", "a"]);
    const none = await runJob(runner, request("demo-bad-output", withAgent(agent)));
    expect(none.skills_activated).toEqual([]);
  });

  it("demo-bad-output fails with schema_violation naming the missing /result", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-bad-output", withAgent(printAgent({ message: "hello" }))));
    expectFailed(result, "schema_violation");
    expect(result.error?.pointer).toBe("/result");
    expect(result.output).toEqual({ message: "hello" });
  });

  it("demo-missing-artifacts fails with artifact_missing for result_artifact", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-missing-artifacts", withAgent(printAgent({ result_artifact: "" }))));
    expectFailed(result, "artifact_missing");
    expect(result.error?.pointer).toBe("/result_artifact");
    expect(result.error?.message).toContain("no file result_artifact.md in the workspace");
  });

  it("demo-missing-result fails with result_missing when the engine gives no JSON", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-missing-result", withAgent("print('I did nothing')")));
    expectFailed(result, "result_missing");
    expect(existsSync(join(result.run_dir, "output.json"))).toBe(false);
  });

  it("demo-bible-verse: fills the parameter default and finds artifacts by x-filename when the output omits their paths", async () => {
    const agent = `import json, os
job = json.loads(os.environ["SKILLRIG_JOB"])
assert job["parameter"] == {"language": "Chinese"}, job["parameter"]
open("text.md", "w").write("> 起初，神创造天地。\\n\\n-- Genesis 1:1\\n")
os.makedirs("out", exist_ok=True)
json.dump({"book": "Genesis"}, open("out/info.json", "w"))
print("{}")`;
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-bible-verse", withAgent(agent)));
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.artifacts.map((a) => a.filename)).toEqual(["text.md", "info.json"]);
    expect((result.output as Record<string, string>).info_file_path).toMatch(/workspace\/out\/info\.json$/);
    expect(result.warnings?.filter((w) => w.includes("did not give its path"))).toHaveLength(2);
    expect(readFileSync(join(result.run_dir, "artifacts/text.md"), "utf8")).toContain("Genesis 1:1");
    // The request named no parameter; run.json records the default the job ran with.
    expect(JSON.parse(readFileSync(join(result.run_dir, "run.json"), "utf8")).resolved.parameter).toEqual({ language: "Chinese" });
    expectValidResultJson(result);
  });

  it("demo-auto-skill: an agent that follows its steps succeeds; extra keys and wrong enums are each a schema_violation", async () => {
    const agent = `import json, os, random, datetime
p = json.loads(os.environ["SKILLRIG_JOB"])["parameter"]
x, y = p["x"], p["y"]
a, b = random.randint(1, min(x - 1, y)), random.randint(1, min(x - 1, y))
prime = lambda n: n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))
print(json.dumps({"x": x, "y": y, "numbers": [a, b], "comparison": "ge" if a > b else "le" if a < b else "eq",
  "parity": ["even" if n % 2 == 0 else "odd" for n in (a, b)], "is_prime": [prime(a), prime(b)],
  "is_3x": [a % 3 == 0, b % 3 == 0], "generated_at": datetime.datetime.now().isoformat()}))`;
    const { runner } = testRunner();
    const ok = await runJob(runner, request("demo-auto-skill", withAgent(agent, { parameter: { x: 50, y: 20 } })));
    expect(ok.status, JSON.stringify(ok.error)).toBe("succeeded");
    expect((ok.output as { numbers: number[] }).numbers.every((n) => n >= 1 && n <= 20)).toBe(true);
    const md = readFileSync(join(ok.run_dir, "SKILL.patched.md"), "utf8");
    expect(md).toContain("Do not ask the user questions");

    const bad = await runJob(runner, request("demo-auto-skill", withAgent(printAgent({ x: 1, comparison: "gt", extra: true }))));
    expectFailed(bad, "schema_violation");
    const pointers = bad.error?.violations?.map((v) => v.pointer);
    expect(pointers).toEqual(expect.arrayContaining(["/comparison", "/extra", "/numbers", "/generated_at"]));
  });

  it("demo-interactive-skill: a dry run shows its patched SKILL.md without the no-questions rule; a real run is refused", async () => {
    const { runner } = testRunner();
    const dry = await runJob(runner, request("demo-interactive-skill", { options: { dry_run: true } }));
    expect(dry.status, JSON.stringify(dry.error)).toBe("succeeded");
    const md = readFileSync(join(dry.run_dir, "SKILL.patched.md"), "utf8");
    expect(md).toContain("## Output contract");
    expect(md).not.toContain("Do not ask the user questions");
    // Unattended, nobody would answer its questions: refused up front rather than failing later as malformed_output.
    await expect(runJob(runner, request("demo-interactive-skill", withAgent(printAgent({ advise: ["rest"] }))))).rejects.toMatchObject({
      code: "skill_interactive_only",
      field: "execution_modes",
    });
  });

  it("does not collect an artifact whose path lies outside the workspace", async () => {
    const { runner, dir } = testRunner();
    const secret = join(dir, "secret.md");
    writeFileSync(secret, "secret");
    const result = await runJob(runner, request("demo-missing-artifacts", withAgent(printAgent({ result_artifact: secret }))));
    expectFailed(result, "artifact_missing");
    expect(result.error?.message).toContain("lies outside the run workspace");
  });

  it("a failing engine run fails the job with engine_failed", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-auto-skill", withAgent("raise SystemExit(3)")));
    expectFailed(result, "engine_failed");
    expect(result.error?.message).toContain("agent script exited 3");
  });
});

describe("time limits and cancels", () => {
  const SLOW = "import time; time.sleep(30)";

  it("the request's timeout_ms aborts the engine and fails the job with timeout", async () => {
    const { runner } = testRunner();
    const result = await runJob(runner, request("demo-auto-skill", withAgent(SLOW, { options: { timeout_ms: 300 } })));
    expectFailed(result, "timeout");
    expect(result.timings.engine_ms).toBeLessThan(10_000);
  });

  it("the time limit fires though the garbage collector runs while the engine waits, with a caller's signal too", async () => {
    // Node 20 keeps an AbortSignal.timeout() only weakly: reachable only through AbortSignal.any() it was collected
    // before it fired, and a job whose engine waits for its signal never ended (a loaded CI run hung on it).
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { runner } = testRunner();
    const collecting = setInterval(gc, 20);
    try {
      const result = await runJob(runner, request("demo-auto-skill", withAgent(SLOW, { options: { timeout_ms: 300 } })), {
        signal: new AbortController().signal,
      });
      expectFailed(result, "timeout");
    } finally {
      clearInterval(collecting);
    }
  });

  it("aborting the caller's signal ends the job as canceled", async () => {
    const { runner } = testRunner();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await runJob(runner, request("demo-auto-skill", withAgent(SLOW)), { signal: controller.signal });
    expect(result.status).toBe("canceled");
    expect(result.error?.code).toBe("canceled");
  });
});

describe("inputs, parameters and extensions", () => {
  it("parameters are validated with every violation listed (parameter_invalid)", async () => {
    const { runner, dir } = testRunner();
    const result = await runJob(
      runner,
      request("demo-prime-number", { files: { input_file: numbersFile(dir) }, parameter: { divisor: 0 }, options: { dry_run: true } }),
    );
    expectFailed(result, "parameter_invalid");
    expect(result.error?.violations?.map((v) => v.pointer)).toEqual(["/parameter/divisor"]);
    expect(result.error?.message).toContain("must be >= 1");
    const missing = await runJob(
      runner,
      request("demo-prime-number", { files: { input_file: numbersFile(dir) }, options: { dry_run: true } }),
    );
    expect(missing.error?.message).toContain("/parameter/divisor: parameter /divisor is required");
  });

  it("inline inputs come from the request, file inputs only from uploads/, unknown keys are errors naming them", async () => {
    const root = join(tempDir(), "skills");
    makeSkill(root, "mixed", {
      input: {
        type: "object",
        properties: {
          doc: { type: "string" },
          query: { type: "string", "x-input-source": "inline" },
          top: { type: "integer", "x-input-source": "inline", minimum: 1 },
        },
        required: ["doc", "query"],
      },
      parameter: { type: "object", properties: { lang: { type: "string", default: "en" } } },
    });
    const { runner, dir } = testRunner({ roots: [root] });
    const ok = await runJob(
      runner,
      request("mixed", { files: { doc: numbersFile(dir) }, input: { query: "primes?", top: 3 }, options: { dry_run: true } }),
    );
    expect(ok.status, JSON.stringify(ok.error)).toBe("succeeded");
    expect(ok.prompt).toContain(`- doc: ${join(ok.run_dir, "uploads/doc")}\n- query: primes?\n- top: 3\n`);
    expect(ok.prompt).toContain("# Parameters\n- lang: en\n");

    const bad = await runJob(
      runner,
      request("mixed", {
        input: { doc: "/etc/passwd", lang: "de", top: 0, extra: 1 },
        parameter: { query: "x" },
        options: { dry_run: true },
      }),
    );
    expectFailed(bad, "input_missing_file");
    const messages: Record<string, string> = {};
    for (const v of bad.error?.violations ?? []) messages[v.pointer ?? ""] = `${messages[v.pointer ?? ""] ?? ""}${v.message}\n`;
    expect(messages["/input/doc"]).toContain("uploads/doc does not exist");
    expect(messages["/input/doc"]).toContain('"doc" is a file input');
    expect(messages["/input/lang"]).toContain('"lang" is a parameter, not an input');
    expect(messages["/input/extra"]).toContain('"extra" is not a field of the input schema');
    expect(messages["/input/top"]).toContain("must be >= 1");
    expect(messages["/input/query"]).toContain("is required");
    expect(messages["/parameter/query"]).toContain('"query" is an input, not a parameter');
  });

  it("a folder in uploads/ named as a file field is refused as such", async () => {
    const { runner } = testRunner();
    runner.hooks.job.resolveInput.tapPromise({ name: "place-folder", stage: -200 }, async (resolution, work) => {
      writeTree(work.run.uploads, { "input_file/inner.txt": "x" });
      return resolution;
    });
    const result = await runJob(runner, request("demo-bad-input", { options: { dry_run: true } }));
    expectFailed(result, "input_invalid");
    expect(result.error?.message).toContain("uploads/input_file is a folder");
  });

  it("an upload for a field that is not a file input is refused", async () => {
    const { runner, dir } = testRunner();
    const result = await runJob(
      runner,
      request("demo-bad-input", { files: { input_file: numbersFile(dir), notes: numbersFile(dir) }, options: { dry_run: true } }),
    );
    expectFailed(result, "input_invalid");
    expect(result.error?.pointer).toBe("/files/notes");
  });

  it("extensions: the uploaded file's original name must carry an allowed extension", async () => {
    const { runner, dir } = testRunner();
    const result = await runJob(
      runner,
      request("demo-bad-input", { files: { input_file: numbersFile(dir, "numbers.csv") }, options: { dry_run: true } }),
    );
    expectFailed(result, "input_invalid");
    expect(result.error?.message).toContain('the uploaded file "numbers.csv" has extension ".csv"; allowed: .txt, .md');
    const upper = await runJob(
      runner,
      request("demo-bad-input", { files: { input_file: numbersFile(dir, "NOTES.MD") }, options: { dry_run: true } }),
    );
    expect(upper.status).toBe("succeeded");
  });

  it("extensions: content is sniffed, so a PNG or binary file named .md is refused", async () => {
    const { runner, dir } = testRunner();
    const png = join(dir, "image.md");
    writeFileSync(png, Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(64)]));
    const r1 = await runJob(runner, request("demo-bad-input", { files: { input_file: png }, options: { dry_run: true } }));
    expectFailed(r1, "input_invalid");
    expect(r1.error?.message).toContain("the file's content is image/png (.png)");
    const bin = join(dir, "data.txt");
    writeFileSync(bin, Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x80, 0x81]));
    const r2 = await runJob(runner, request("demo-bad-input", { files: { input_file: bin }, options: { dry_run: true } }));
    expect(r2.error?.message).toContain("is not UTF-8 text");
  });

  it("extensions: a file placed in uploads/ without an original name is checked by content only", async () => {
    const { runner } = testRunner();
    // A custom plugin puts the upload in place the way the server's zip upload does (no original name).
    runner.hooks.job.resolveInput.tapPromise({ name: "place-upload", stage: -200 }, async (resolution, work) => {
      writeTree(work.run.uploads, { input_file: "42\n" });
      return resolution;
    });
    const result = await runJob(runner, request("demo-bad-input", { options: { dry_run: true } }));
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.prompt).toContain(`input_file: ${join(result.run_dir, "uploads/input_file")}`);
  });

  it("extensions: a host file named exactly as the field (a server's upload folder) is checked by content only", async () => {
    const { runner, dir } = testRunner();
    const text = numbersFile(dir, "input_file");
    const ok = await runJob(runner, request("demo-bad-input", { files: { input_file: text }, options: { dry_run: true } }));
    expect(ok.status, JSON.stringify(ok.error)).toBe("succeeded");
    const pdf = join(tempDir(), "input_file");
    writeFileSync(pdf, "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n");
    const refused = await runJob(runner, request("demo-bad-input", { files: { input_file: pdf }, options: { dry_run: true } }));
    expectFailed(refused, "input_invalid");
    expect(refused.error?.message).toContain("application/pdf");
  });
});

describe("prompts", () => {
  it("an engine-specific template replaces the default for that engine only", async () => {
    const { runner, dir } = testRunner();
    const csv = join(dir, "data.csv");
    writeFileSync(csv, "a,b\n1,2\n");
    const gemini = await runJob(runner, {
      skill_id: "demo-pandas-stats",
      engine: "gemini",
      files: { csv_file: csv },
      parameter: { column: "b" },
      options: { dry_run: true },
    });
    expect(gemini.status, JSON.stringify(gemini.error)).toBe("succeeded");
    expect(gemini.prompt).toBe(
      `Please analyze the CSV file \`${join(gemini.run_dir, "uploads/csv_file")}\`. Calculate the mean of column \`b\`. Follow \`SKILL.md\` for the exact script path and output the FINAL result as a valid JSON object: \`{"mean": <value>}\`.`,
    );
    const other = await runJob(runner, {
      skill_id: "demo-pandas-stats",
      engine: "codex",
      files: { csv_file: csv },
      parameter: { column: "b" },
      options: { dry_run: true },
    });
    expect(other.prompt).toContain("# Inputs\n- csv_file: ");
    expect(other.prompt).toContain("# Parameters\n- column: b\n");
  });

  it("SKILL.md can use the run context (skill_dir, run_dir, uploads_dir)", async () => {
    const { runner, dir } = testRunner();
    const csv = join(dir, "data.csv");
    writeFileSync(csv, "a\n1\n");
    const result = await runJob(runner, {
      skill_id: "demo-pandas-stats",
      engine: "codex",
      files: { csv_file: csv },
      parameter: { column: "a" },
      options: { dry_run: true },
    });
    const md = readFileSync(join(result.run_dir, "SKILL.patched.md"), "utf8");
    const skillDir = join(result.run_dir, "workspace/.agents/skills/demo-pandas-stats");
    expect(md).toContain(`python3 ${skillDir}/scripts/analyze.py "${join(result.run_dir, "uploads/csv_file")}" "a"`);
    expect(existsSync(`${skillDir}/scripts/analyze.py`)).toBe(true);
  });

  it("a template error at render time fails the job with template_error naming the file and line", async () => {
    const root = join(tempDir(), "skills");
    makeSkill(root, "shouty", { skillMd: "---\nname: shouty\ndescription: x\n---\n\n{{ input.missing.deeper() }}\n" });
    const { runner } = testRunner({ roots: [root] });
    const result = await runJob(runner, request("shouty", { options: { dry_run: true } }));
    expectFailed(result, "template_error");
    expect(result.error?.line).toBe(6);
    expect(result.error?.file).toMatch(/shouty\/SKILL\.md$/);
  });
});

describe("engines", () => {
  it("throws engine_not_found before creating a run folder when no plugin handles the engine", async () => {
    const { runner } = testRunner();
    await expect(runJob(runner, { skill_id: "demo-auto-skill", engine: "nope" })).rejects.toMatchObject({ code: "engine_not_found" });
  });

  it("refuses an engine the skill's engines list does not name", async () => {
    const root = join(tempDir(), "skills");
    makeSkill(root, "gemini-only", { runner: { id: "gemini-only", engines: ["gemini"], schemas: {} } });
    const { runner } = testRunner({ roots: [root] });
    await expect(runJob(runner, request("gemini-only"))).rejects.toThrow(/supports the engines gemini, not "script"/);
  });

  it("refuses a skill that needs interactive answers before anything runs, naming the field and the way out", async () => {
    const root = join(tempDir(), "skills");
    makeSkill(root, "asks-user", { runner: { id: "asks-user", execution_modes: ["interactive"], schemas: {} } });
    const { runner } = testRunner({ roots: [root] });
    const refused = runJob(runner, request("asks-user", withAgent(printAgent({}))));
    await expect(refused).rejects.toMatchObject({ code: "skill_interactive_only", pointer: "/execution_modes", field: "execution_modes" });
    await expect(refused).rejects.toThrow(/needs interactive answers .*nobody would answer/);
    // A skill that can also run unattended still runs.
    makeSkill(root, "asks-sometimes", { runner: { id: "asks-sometimes", execution_modes: ["interactive", "auto"], schemas: {} } });
    const result = await runJob(runner, request("asks-sometimes", withAgent(printAgent({}))));
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
  });
});
