/** The published JSON Schemas of a skill's eval files, loaded once. */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
/**
 * The published JSON Schema of evals/evals.json (also `@skillrig/evals/evals-schema.json`), with the built-in
 * assertion kinds' definitions for editors. Loading checks each assertion against its kind's own schema (the
 * `assertion` hook), so a plugin's kinds are checked the same way.
 */
export const evalsJsonSchema: Record<string, unknown> = require("./evals.schema.json");
/** The published JSON Schema of evals/triggers.json (also `@skillrig/evals/triggers-schema.json`). */
export const triggersJsonSchema: Record<string, unknown> = require("./triggers.schema.json");
