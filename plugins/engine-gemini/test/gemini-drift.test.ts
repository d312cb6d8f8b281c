/**
 * Drift: the pinned Gemini CLI (the version in package.json) run against the mock model, its event stream reduced to its
 * shape (event types and their keys, no values) and compared with the shape recorded in fixtures/event-shape.json.
 * A CLI upgrade that changes the stream fails here with the difference listed; after checking the stream parser
 * against it, re-record with SKILLRIG_RECORD_SHAPES=1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { eventShape, eventShapeDiff, type EventShape } from "@skillrig/engine-kit";
import { runJob } from "@skillrig/skills";
import { startMockModel } from "@skillrig/mock-model";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { engineRunner } from "./support.js";

const SHAPE_FILE = resolve(import.meta.dirname, "fixtures/event-shape.json");

describe("Gemini CLI event stream drift", () => {
  it("the pinned CLI's events have the recorded shape (a tool call, a file write, a final message, usage)", async () => {
    const mock = await startMockModel({
      scenario: {
        turns: [
          { shell: { command: "echo drift-check" } },
          { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
          { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
        ],
      },
    });
    try {
      process.env.SKILLRIG_DRIFT_KEY = "drift-key";
      const { runner } = engineRunner(
        new GeminiEnginePlugin({ base_url: mock.url, api_key_env: "SKILLRIG_DRIFT_KEY", approval_mode: "yolo" }),
      );
      const result = await runJob(runner, { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } });
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      const actual = eventShape(readFileSync(join(result.run_dir, "logs/gemini.stdout.log"), "utf8"));
      const recorded = JSON.parse(readFileSync(SHAPE_FILE, "utf8")) as { version: string; shape: EventShape };
      if (process.env.SKILLRIG_RECORD_SHAPES === "1") {
        writeFileSync(SHAPE_FILE, `${JSON.stringify({ version: result.engine_version, shape: actual }, null, 2)}\n`);
        return;
      }
      const diff = eventShapeDiff(recorded.shape, actual);
      expect(
        diff,
        `Gemini CLI ${result.engine_version} (recorded with ${recorded.version}) changed its event stream:\n${diff.join("\n")}`,
      ).toEqual([]);
      expect(result.engine_version).toBe(recorded.version);
    } finally {
      await mock.close();
    }
  });
});
