/** What engine-kit's shared engine suite, and codex's own tests, need to know about codex. */
import { resolve } from "node:path";
import type { EngineTestSettings } from "@skillrig/engine-kit/testing";
import CodexEnginePlugin, {
  classifyCodexRun,
  createCodexStreamParser,
  type CodexOptions,
  type CodexStreamParser,
} from "@skillrig/engine-codex";

export const codex: EngineTestSettings<CodexOptions, CodexStreamParser> = {
  engine: "codex",
  displayName: "Codex CLI",
  plugin: CodexEnginePlugin,
  version: "0.169.0",
  fixtures: resolve(import.meta.dirname, "fixtures"),
  testKey: "sk-test-codex",
  // codex speaks the Responses API under /v1.
  againstMock: (url, apiKeyEnv) => ({ base_url: `${url}/v1`, api_key_env: apiKeyEnv, retries: 0 }),
  transcripts: {
    parser: () => createCodexStreamParser(),
    classify: classifyCodexRun,
  },
};
