/** What engine-kit's shared engine suite, and gemini's own tests, need to know about gemini. */
import { resolve } from "node:path";
import type { EngineTestSettings } from "@skillrig/engine-kit/testing";
import GeminiEnginePlugin, {
  classifyGeminiRun,
  createGeminiStreamParser,
  type GeminiOptions,
  type GeminiStreamParser,
} from "@skillrig/engine-gemini";

export const gemini: EngineTestSettings<GeminiOptions, GeminiStreamParser> = {
  engine: "gemini",
  displayName: "Gemini CLI",
  plugin: GeminiEnginePlugin,
  version: "0.61.0",
  fixtures: resolve(import.meta.dirname, "fixtures"),
  testKey: "gm-test-key",
  againstMock: (url, apiKeyEnv) => ({ base_url: url, api_key_env: apiKeyEnv, model: "gemini-2.5-flash" }),
  shellAllowed: { approval_mode: "yolo" },
  transcripts: {
    parser: (name) => createGeminiStreamParser(`/run/${name}/cwd`),
    classify: classifyGeminiRun,
  },
};
