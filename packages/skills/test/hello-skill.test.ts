import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSkill, runJob } from "@skillrig/skills";
import { SCRIPT_ENGINE } from "./support/script-engine.mjs";
import { tempDir, testRunner } from "./support/helpers.js";

const EXAMPLE = resolve(import.meta.dirname, "../../../examples/hello-skill");

/** An agent that does what the patched SKILL.md says: run its bash block, then answer with the script's JSON. */
const FOLLOW_SKILL_MD = String.raw`
import json, os, re, subprocess
job = json.loads(os.environ["SKILLRIG_JOB"])
md = open(os.path.join(job["context"]["skill_dir"], "SKILL.md")).read()
command = re.search(r"~~~bash\n(.*?)\n\s*~~~".replace("~~~", "\x60\x60\x60"), md, re.S).group(1).strip()
print(subprocess.check_output(command, shell=True, text=True).strip())
`;

describe("examples/hello-skill", () => {
  it("its skill package is valid", () => {
    const check = checkSkill(join(EXAMPLE, "skills/word-stats"));
    expect(check.errors).toEqual([]);
    expect(check.warnings).toEqual([]);
  });

  it("runs end to end with an agent that follows the patched SKILL.md", async () => {
    // A copy whose engines list admits the test engine (the example lists the real CLIs only).
    const root = join(tempDir(), "skills");
    cpSync(join(EXAMPLE, "skills"), root, { recursive: true });
    const runnerFile = join(root, "word-stats/assets/runner.json");
    const runnerJson = JSON.parse(readFileSync(runnerFile, "utf8"));
    writeFileSync(runnerFile, JSON.stringify({ ...runnerJson, engines: [...runnerJson.engines, SCRIPT_ENGINE] }));
    const { runner } = testRunner({ roots: [root] });
    const result = await runJob(runner, {
      skill_id: "word-stats",
      engine: SCRIPT_ENGINE,
      files: { text: join(EXAMPLE, "notes.txt") },
      parameter: { top: 3, min_length: 2 },
      options: { engine: { script: FOLLOW_SKILL_MD } },
    });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({
      // 31 words, less the three "a" that min_length 2 drops
      total_words: 28,
      top_words: [
        { word: "the", count: 7 },
        { word: "skill", count: 3 },
        { word: "words", count: 3 },
      ],
    });
    expect(result.artifacts).toEqual([
      expect.objectContaining({ field: "report_path", role: "report", relativePath: "artifacts/report.md" }),
    ]);
    expect(readFileSync(join(result.run_dir, "artifacts/report.md"), "utf8")).toContain("| the | 7 |");
  });
});
