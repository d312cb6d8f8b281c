/**
 * codex's `--output-schema` goes to OpenAI structured outputs in strict mode, which accepts a subset of
 * JSON Schema: every object lists all its properties in `required` and sets `additionalProperties: false`;
 * a property that may be left out becomes nullable instead. This converts a skill's output schema to that
 * form, dropping keywords strict mode rejects (and skillrig's x-* keys), and says what it changed. A
 * free-form object (no `properties`) cannot be expressed; then no schema is passed and the prompt carries
 * the contract alone. `dropAddedNulls` undoes the nullable trick on the answer, so it validates against
 * the skill's own schema.
 */
type Schema = Record<string, unknown>;

/** Keywords strict structured outputs accept. */
const SUPPORTED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

export interface StrictSchemaResult {
  /** The strict schema, or undefined when the skill's schema cannot be expressed strictly. */
  schema?: Schema;
  /** What was changed, by JSON pointer ("/properties/notes: optional -> nullable"). */
  changes: string[];
  /** Why there is no strict schema. */
  unsupported?: string;
}

class Unsupported extends Error {}

function allowsNull(schema: Schema): boolean {
  const t = schema.type;
  if (t === "null" || (Array.isArray(t) && t.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => typeof s === "object" && s !== null && allowsNull(s as Schema));
  return false;
}

function nullable(schema: Schema): Schema {
  if (allowsNull(schema)) return schema;
  if (typeof schema.type === "string" && schema.anyOf === undefined && schema.$ref === undefined) {
    const out: Schema = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

function convert(schema: unknown, at: string, changes: string[]): Schema {
  if (schema === true || schema === undefined) throw new Unsupported(`${at || "/"} accepts any value`);
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw new Unsupported(`${at || "/"} is not a schema object`);
  const src = schema as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === "oneOf" && Array.isArray(value)) {
      out.anyOf = value.map((s, i) => convert(s, `${at}/oneOf/${i}`, changes));
      changes.push(`${at}/oneOf: -> anyOf`);
    } else if (!SUPPORTED.has(key)) {
      changes.push(`${at}/${key}: dropped`);
    } else if (key === "properties" || key === "$defs" || key === "definitions") {
      const props: Schema = {};
      for (const [name, sub] of Object.entries(value as Schema)) props[name] = convert(sub, `${at}/${key}/${name}`, changes);
      out[key] = props;
    } else if (key === "items") {
      if (Array.isArray(value)) throw new Unsupported(`${at}/items is a tuple`);
      out.items = convert(value, `${at}/items`, changes);
    } else if (key === "anyOf" && Array.isArray(value)) {
      out.anyOf = value.map((s, i) => convert(s, `${at}/anyOf/${i}`, changes));
    } else if (key === "additionalProperties" || key === "required") {
      // Rewritten below for objects.
    } else {
      out[key] = value;
    }
  }
  const isObject = src.type === "object" || (Array.isArray(src.type) && src.type.includes("object")) || src.properties !== undefined;
  if (isObject) {
    const props = (out.properties as Schema | undefined) ?? {};
    if (Object.keys(props).length === 0) throw new Unsupported(`${at || "/"} is an object without declared properties`);
    if (src.additionalProperties !== undefined && src.additionalProperties !== false) {
      throw new Unsupported(`${at || "/"} allows additional properties`);
    }
    const required = new Set(Array.isArray(src.required) ? (src.required as string[]) : []);
    for (const name of Object.keys(props)) {
      if (!required.has(name)) {
        props[name] = nullable(props[name] as Schema);
        changes.push(`${at}/properties/${name}: optional -> required and nullable`);
      }
    }
    out.properties = props;
    out.required = Object.keys(props);
    out.additionalProperties = false;
    if (src.type === undefined) out.type = "object";
  }
  return out;
}

export function toStrictSchema(schema: unknown): StrictSchemaResult {
  const changes: string[] = [];
  try {
    const converted = convert(schema, "", changes);
    if (converted.type !== "object") return { changes, unsupported: "the root is not an object (structured outputs need an object)" };
    return { schema: converted, changes };
  } catch (error) {
    if (error instanceof Unsupported) return { changes, unsupported: error.message };
    throw error;
  }
}

/**
 * Removes the nulls strict mode forced into optional properties that the skill's schema does not allow to
 * be null. Returns the pointers it removed.
 */
export function dropAddedNulls(value: unknown, schema: unknown, at = ""): string[] {
  const removed: string[] = [];
  if (typeof schema !== "object" || schema === null) return removed;
  const s = schema as Schema;
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === "object") value.forEach((v, i) => removed.push(...dropAddedNulls(v, s.items, `${at}/${i}`)));
    return removed;
  }
  if (typeof value !== "object" || value === null) return removed;
  const obj = value as Record<string, unknown>;
  const props = (s.properties as Schema | undefined) ?? {};
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  for (const [name, sub] of Object.entries(props)) {
    if (!(name in obj)) continue;
    if (obj[name] === null && !required.has(name) && !allowsNull(sub as Schema)) {
      delete obj[name];
      removed.push(`${at}/${name}`);
    } else {
      removed.push(...dropAddedNulls(obj[name], sub, `${at}/${name}`));
    }
  }
  return removed;
}
