/**
 * engine-kit's shared engine suite on claude: the real claude binary (@anthropic-ai/claude-code 2.1.330, a dev
 * dependency) against @skillrig/mock-model speaking Anthropic's Messages API on loopback through runJob, in and out
 * of the agent jail (which claude gets from engine-kit with no code of its own). Claude's own cases are in the other
 * files here.
 */
import { describeEngine } from "@skillrig/engine-kit/testing";
import { claude } from "./settings.js";

describeEngine(claude, {
  badOptions: {
    inConstructor: [
      {
        options: { permission_mode: "yolo" },
        throws:
          /@skillrig\/engine-claude options: permission_mode: must be one of "acceptEdits", "bypassPermissions", "dontAsk", "default"/,
      },
      { options: { allowed_tools: "Bash" }, throws: /allowed_tools: must be array/ },
    ],
    perJob: { options: { retries: -1 }, says: /engine options of job .*: retries: must be >= 0/ },
  },
  // With retries 0 (the settings' againstMock) Claude Code exits on the 401 with its own words, not the API's message.
  rejectedKey: {
    message: "invalid x-api-key",
    says: ["Claude Code could not authenticate: Invalid API key · Fix external API key [exit code 1, HTTP 401]"],
  },
  hang: { timeout_ms: 8000 },
  unreachable: {
    // Claude Code's own retries left at their default: its parser stops it at the fourth failed connection.
    options: (url, apiKeyEnv) => ({ base_url: url, api_key_env: apiKeyEnv }),
    timeout_ms: 120_000,
    says: /cannot reach the model API \(4 requests failed without a connection/,
  },
  malformed: {
    answer: "I would rather not.",
    engine: { output_schema: false },
    says: /malformed_output.*no JSON object.*I would rather not/,
  },
  jail: { userNamespaces: false },
  drift: true,
});
