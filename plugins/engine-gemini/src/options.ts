import type { BaseEngineOptions } from "@skillrig/engine-kit";

export interface GeminiOptions extends BaseEngineOptions {
  /** `auto_edit` (default): file edits are approved, shell commands are not; `yolo`: every tool call is approved. */
  approval_mode?: "auto_edit" | "yolo";
  /** Merged over the settings.json skillrig writes into the CLI's isolated home. */
  settings?: Record<string, unknown>;
  /**
   * How often the CLI retries a failed model request (settings.json `general.maxAttempts` minus one; at most 9).
   * Default 0 with mock_scenario (a scripted 429 or 500 ends the run at once, as for codex and claude), else the
   * CLI's own (10 attempts with backoff from 5 s to 30 s: minutes on a rate-limited endpoint).
   */
  retries?: number;
}

export const GEMINI_OPTION_PROPERTIES = {
  approval_mode: { enum: ["auto_edit", "yolo"] },
  settings: { type: "object" },
  retries: { type: "integer", minimum: 0, maximum: 9 },
};
