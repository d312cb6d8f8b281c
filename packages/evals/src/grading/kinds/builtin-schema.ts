/**
 * A built-in kind's fields schema, taken from its definition in the published evals.schema.json (which editors
 * complete against): the same object without `kind` and `text`, which grading checks for every kind.
 */
import { evalsJsonSchema } from "../../evals-json-schema.js";

export function builtinFieldsSchema(kind: string): Record<string, unknown> {
  const definitions = evalsJsonSchema.definitions as Record<string, { properties: Record<string, unknown>; required?: string[] }>;
  const definition = definitions[kind];
  if (!definition) throw new Error(`evals.schema.json has no definition of the built-in kind "${kind}"`);
  const { kind: _kind, text: _text, ...properties } = definition.properties;
  return {
    $schema: evalsJsonSchema.$schema,
    ...definition,
    properties,
    required: (definition.required ?? []).filter((name) => name !== "kind" && name !== "text"),
    ...referencedDefinitions(definition, definitions),
  };
}

/**
 * The shared definitions a kind's definition points at (`"$ref": "#/definitions/tool_call_matcher"`), carried
 * along so the refs resolve in the kind's own schema.
 */
function referencedDefinitions(definition: unknown, definitions: Record<string, unknown>): { definitions?: Record<string, unknown> } {
  const names = [...JSON.stringify(definition).matchAll(/"#\/definitions\/([^"]+)"/g)].map((m) => m[1]!);
  if (names.length === 0) return {};
  const carried: Record<string, unknown> = {};
  for (const name of names) {
    if (!definitions[name]) throw new Error(`evals.schema.json refers to #/definitions/${name}, which it does not define`);
    carried[name] = definitions[name];
  }
  return { definitions: carried };
}
