/**
 * One assertion object checked against its kind, as evals.json is checked before anything runs: `text` (every
 * kind's) must be a string, the rest must satisfy the kind's schema, then the kind's own `check`. Pointers are
 * relative to the assertion (`/path`); the caller prefixes the assertion's place in the file.
 */
import {
  type AssertionKind,
  type AssertionObject,
  type CompiledSchema,
  compileSchema,
  SkillrigError,
  type Violation,
} from "@skillrig/core";
import { KIND_OWNERS } from "./define-assertion-kind.js";

const compiled = new WeakMap<AssertionKind, CompiledSchema>();

function validatorOf(kind: AssertionKind): CompiledSchema {
  let validator = compiled.get(kind);
  if (!validator) {
    try {
      validator = compileSchema(kind.schema);
    } catch (error) {
      const owner = KIND_OWNERS.get(kind);
      throw new SkillrigError(
        "invalid_config",
        `plugin "${owner?.name ?? "(unknown)"}": the schema of assertion kind "${owner?.kind ?? "(unknown)"}" does not compile: ${(error as Error).message}`,
        { field: "schema" },
      );
    }
    compiled.set(kind, validator);
  }
  return validator;
}

export function checkAssertionObject(kind: AssertionKind, assertion: AssertionObject, skillDir: string): Violation[] {
  const { kind: _kind, text, ...fields } = assertion;
  const violations: Violation[] = [];
  if (text !== undefined && typeof text !== "string") violations.push({ pointer: "/text", message: "must be string", rule: "type" });
  for (const v of validatorOf(kind).validate(fields)) violations.push(v);
  if (violations.length > 0 || !kind.check) return violations;
  return kind.check(assertion, { skillDir });
}
