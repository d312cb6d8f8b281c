/**
 * engine-kit's shared engine suite on codex: the real codex binary (@openai/codex 0.169.0, a dev dependency) against
 * @skillrig/mock-model on loopback through runJob, in and out of the agent jail, the event-stream drift check and
 * the opt-in live tier (CODEX_API_KEY). Codex's own cases are in the other files here.
 */
import { expect } from "vitest";
import { describeEngine } from "@skillrig/engine-kit/testing";
import { codex } from "./settings.js";

describeEngine(codex, {
  transcripts: {
    // codex_ok: the agent message, usage and a completed turn
    success: { name: "codex_ok", exitCode: 0, finalMessage: "hi", usage: { inputTokens: 120, outputTokens: 7, totalTokens: 127 } },
    also: ({ parser, events }) => {
      expect(parser.threadId()).toBe("01a203b3-268e-7e02-80a7-d83c9b478473");
      expect(events).toContainEqual({ type: "message", role: "assistant", text: "hi" });
    },
  },
  badOptions: {
    inConstructor: [
      {
        options: { sandbox: "full-auto" },
        throws: /@skillrig\/engine-codex options: sandbox: must be one of "read-only", "workspace-write", "danger-full-access"/,
      },
    ],
    perJob: { options: { timeout_ms: "soon" }, says: /engine options of job .*: timeout_ms: must be integer/ },
  },
  rejectedKey: { message: "Incorrect API key provided: sk-test-codex.", says: ["Incorrect API key provided: sk-test-codex.", "401"] },
  hang: { timeout_ms: 4000 },
  unreachable: {
    // codex's own retries left at their default: it retries ("waiting for network") until its parser stops it.
    options: (url, apiKeyEnv) => ({ base_url: `${url}/v1`, api_key_env: apiKeyEnv }),
    timeout_ms: 110_000,
    // Unjailed codex retries until we stop it; jailed, the egress relay drops the connection it cannot forward and
    // codex ends at once.
    says: /cannot reach the model API .*waiting for network.* 3 times|stream disconnected before completion: error sending request/,
  },
  malformed: {
    answer: "Sorry, I could not write the greeting.",
    engine: { output_schema: false },
    says: /malformed_output.*not JSON.*Sorry, I could not/,
  },
  // codex's own sandbox (bubblewrap inside the jail) makes a user namespace; unconfined, it is turned off too.
  jail: { userNamespaces: true, unconfined: { sandbox: "danger-full-access" } },
  drift: true,
  live: {
    keyEnv: "CODEX_API_KEY",
    api: "OpenAI API",
    options: () => ({ ...(process.env.SKILLRIG_CODEX_MODEL ? { model: process.env.SKILLRIG_CODEX_MODEL } : {}), timeout_ms: 240_000 }),
  },
});
