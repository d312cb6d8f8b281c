/**
 * Tier 3 (opt-in): the real codex binary against the real OpenAI API. Runs only when CODEX_API_KEY is set;
 * otherwise the suite is skipped and says why (the one skip the project allows: it needs a paid key and network).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runJob } from "@skillrig/skills";
import CodexEnginePlugin from "@skillrig/engine-codex";
import { engineRunner } from "./support.js";

const key = process.env.CODEX_API_KEY;
if (!key)
  console.warn(
    "[engine-codex] live tests skipped: CODEX_API_KEY is not set (set it to run the write-greeting skill against the real OpenAI API)",
  );

describe.skipIf(!key)("codex engine against the real OpenAI API (CODEX_API_KEY)", () => {
  it("runs the write-greeting skill: artifact written, output valid", { timeout: 300_000 }, async () => {
    const { runner } = engineRunner(
      new CodexEnginePlugin({
        ...(process.env.SKILLRIG_CODEX_MODEL ? { model: process.env.SKILLRIG_CODEX_MODEL } : {}),
        timeout_ms: 240_000,
      }),
    );
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" } });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toMatch(/Ada/);
  });
});
