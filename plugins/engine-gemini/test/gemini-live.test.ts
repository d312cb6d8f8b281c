/**
 * Tier 3 (opt-in): the real gemini binary against the real Gemini API. Runs only when GEMINI_API_KEY is set;
 * otherwise the suite is skipped and says why (the one skip the project allows: it needs a paid key and network).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runJob } from "@skillrig/skills";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { engineRunner } from "./support.js";

const key = process.env.GEMINI_API_KEY;
if (!key)
  console.warn(
    "[engine-gemini] live tests skipped: GEMINI_API_KEY is not set (set it to run the write-greeting skill against the real Gemini API)",
  );

describe.skipIf(!key)("gemini engine against the real Gemini API (GEMINI_API_KEY)", () => {
  it("runs the write-greeting skill: artifact written, output valid", { timeout: 300_000 }, async () => {
    const { runner } = engineRunner(
      new GeminiEnginePlugin({ model: process.env.SKILLRIG_GEMINI_MODEL ?? "gemini-2.5-flash", timeout_ms: 240_000 }),
    );
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toMatch(/Ada/);
  });
});
