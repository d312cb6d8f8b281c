/** What engine-kit's shared engine suite, and Claude Code's own tests, need to know about the claude engine. */
import { resolve } from "node:path";
import type { EngineTestSettings } from "@skillrig/engine-kit/testing";
import { turn } from "@skillrig/mock-model";
import ClaudeEnginePlugin, {
  classifyClaudeRun,
  createClaudeStreamParser,
  type ClaudeOptions,
  type ClaudeStreamParser,
} from "@skillrig/engine-claude";

export const claude: EngineTestSettings<ClaudeOptions, ClaudeStreamParser> = {
  engine: "claude",
  displayName: "Claude Code",
  plugin: ClaudeEnginePlugin,
  version: "2.1.330",
  fixtures: resolve(import.meta.dirname, "fixtures"),
  testKey: "sk-ant-test-key",
  againstMock: (url, apiKeyEnv) => ({ base_url: url, api_key_env: apiKeyEnv, model: "claude-sonnet-4-5", retries: 0 }),
  shellAllowed: { allowed_tools: ["Bash"] },
  writeGreeting: turn.shell("printf 'Hello, Ada!\\n' > greeting.txt"),
  transcripts: {
    parser: (name) => createClaudeStreamParser(`/run/${name}/workspace`),
    classify: classifyClaudeRun,
  },
};
