/**
 * engine-kit's shared engine suite on gemini: the real gemini binary (@google/gemini-cli 0.61.0, a dev dependency)
 * against @skillrig/mock-model on loopback through runJob, in and out of the agent jail, the event-stream drift
 * check and the opt-in live tier (GEMINI_API_KEY). Gemini's own cases are in the other files here.
 */
import { expect } from "vitest";
import { describeEngine } from "@skillrig/engine-kit/testing";
import { gemini } from "./settings.js";

describeEngine(gemini, {
  transcripts: {
    // gem_ok_stream: the assistant's reply, usage, success
    success: { name: "gem_ok_stream", exitCode: 0, finalMessage: "hi", usage: { inputTokens: 100, outputTokens: 5, totalTokens: 105 } },
    also: ({ parser, events }) => {
      expect(parser.model()).toBe("gemini-2.5-flash");
      expect(events).toContainEqual({ type: "message", role: "assistant", text: "hi", delta: true });
      expect(events).toContainEqual({ type: "message", role: "user", text: "say hi" });
    },
  },
  badOptions: {
    inConstructor: [
      {
        options: { approval_mode: "always" },
        throws: /@skillrig\/engine-gemini options: approval_mode: must be one of "auto_edit", "yolo"/,
      },
    ],
    perJob: { options: { timeout_ms: "soon" }, says: /engine options of job .*: timeout_ms: must be integer/ },
  },
  rejectedKey: { message: "Request had invalid authentication credentials.", says: ["Request had invalid authentication credentials."] },
  hang: { timeout_ms: 6000 },
  unreachable: { timeout_ms: 150_000, says: /cannot reach the model API \(4 requests failed with "fetch failed"/ },
  malformed: { answer: "I would rather not.", says: /malformed_output.*no JSON object.*I would rather not/ },
  jail: { userNamespaces: false },
  drift: true,
  live: {
    keyEnv: "GEMINI_API_KEY",
    api: "Gemini API",
    options: () => ({ model: process.env.SKILLRIG_GEMINI_MODEL ?? "gemini-2.5-flash", timeout_ms: 240_000 }),
  },
});
