/**
 * gemini has no structured-output flag: the final JSON comes through a contract added to the prompt. The
 * model writes the JSON to a file with its own write tool and repeats it as its last message; skillrig
 * reads the file if it was written, else the message, and repairs either deterministically.
 */
import type { EngineRunContext } from "@skillrig/engine-kit";
import type { GeminiOptions } from "./options.js";

export function geminiOutputContract(ctx: Omit<EngineRunContext<GeminiOptions>, "prompt">): string {
  const lines = [
    "## Final answer (required)",
    `When the task is done, write the final result as a single JSON object to the file ${ctx.outputFile} with your file-writing tool,`,
    "then give the same JSON object as your last message.",
  ];
  if (ctx.outputSchema !== undefined) {
    lines.push("The JSON object must match this JSON Schema:", JSON.stringify(ctx.outputSchema));
  }
  return lines.join("\n");
}
