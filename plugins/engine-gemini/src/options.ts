import type { BaseEngineOptions } from "@skillrig/engine-kit";

export interface GeminiOptions extends BaseEngineOptions {
  /** `auto_edit` (default): file edits are approved, shell commands are not; `yolo`: every tool call is approved. */
  approval_mode?: "auto_edit" | "yolo";
  /** Merged over the settings.json skillrig writes into the CLI's isolated home. */
  settings?: Record<string, unknown>;
}

export const GEMINI_OPTION_PROPERTIES = {
  approval_mode: { enum: ["auto_edit", "yolo"] },
  settings: { type: "object" },
};
