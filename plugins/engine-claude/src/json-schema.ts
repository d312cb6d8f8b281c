/**
 * The skill's output schema as `claude --json-schema` accepts it. Claude Code compiles the schema with ajv in
 * strict mode and refuses the whole run on a keyword it does not know ("strict mode: unknown keyword: \"x-type\""),
 * so skillrig's own annotations (`x-type`, `x-role`, `x-filename`, `x-input-source`, any `x-*`) are dropped. They tell
 * skillrig how to collect artifacts and mean nothing to the model; skillrig still validates the answer against the
 * full schema afterwards. Only keywords are dropped, never property names (json-schema-traverse visits schema
 * positions only, so a property called "x-id" stays).
 */
import traverse from "json-schema-traverse";
import type { JsonSchema } from "@skillrig/core";

export interface ClaudeSchemaResult {
  /** The schema to pass, or undefined when the output schema cannot be one (a boolean schema). */
  schema?: Record<string, unknown>;
  /** What was changed, for the outcome's notes. */
  changes: string[];
}

export function toClaudeSchema(schema: JsonSchema): ClaudeSchemaResult {
  if (typeof schema !== "object" || schema === null)
    return { changes: [`--json-schema not used: the output schema is ${JSON.stringify(schema)}`] };
  const copy = structuredClone(schema) as Record<string, unknown>;
  const dropped = new Set<string>();
  traverse(copy, {
    allKeys: true,
    cb: (node) => {
      for (const key of Object.keys(node)) {
        if (key.startsWith("x-")) {
          delete node[key];
          dropped.add(key);
        }
      }
    },
  });
  const changes = dropped.size > 0 ? [`--json-schema: dropped skillrig's annotation keywords ${[...dropped].sort().join(", ")}`] : [];
  return { schema: copy, changes };
}
