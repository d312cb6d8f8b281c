/**
 * `defineAssertionKind`: an assertion kind as a plugin. The plugin taps `runner.hooks.assertion.for(kind)` (which
 * claims the kind: a second plugin with the same kind is a `plugin_conflict` naming both) and returns the
 * definition. The kind's schema is compiled when evals.json is first checked against it (checkAssertionObject), not
 * here: every command that builds a runner applies the built-in kinds, and compiling at import would load ajv for
 * `skillrig test` too (as core's config sections, a schema that does not compile is named at load, with its plugin).
 */
import { type AssertionKind, type AssertionObject, type AssertionShape, type SkillrigPlugin, SkillrigError } from "@skillrig/core";

/** npm-like kind names: lower case, digits, `_` and `-`, starting with a letter (they are JSON keys and folder-safe). */
export const ASSERTION_KIND_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export interface AssertionKindDefinition<A extends AssertionShape = AssertionObject> extends AssertionKind<A> {
  /** The plugin's stable name (usually its package name): claims and errors name it. */
  name: string;
  /** The kind evals.json names: `{ "kind": "<kind>", ... }`. */
  kind: string;
}

export interface AssertionKindPlugin extends SkillrigPlugin {
  /** The kind this plugin declares, and its definition (for tests and listings). */
  readonly kind: string;
  readonly definition: AssertionKind;
}

/** Which plugin declared a kind's definition, and under which name: errors about its schema name both. */
export const KIND_OWNERS = new WeakMap<AssertionKind, { name: string; kind: string }>();

export function defineAssertionKind<A extends AssertionShape = AssertionObject>(
  definition: AssertionKindDefinition<A>,
): AssertionKindPlugin {
  const { name, kind, ...declared } = definition;
  if (typeof name !== "string" || name === "")
    throw new SkillrigError("invalid_config", "defineAssertionKind needs the plugin's name (its package name)", { field: "name" });
  if (!ASSERTION_KIND_NAME.test(kind ?? ""))
    throw new SkillrigError(
      "invalid_config",
      `plugin "${name}": assertion kind ${JSON.stringify(kind)} is not a usable name: lower case letters, digits, "_" and "-", starting with a letter`,
      { field: "kind" },
    );
  if (declared.runsIn !== "runner" && declared.runsIn !== "sandbox")
    throw new SkillrigError("invalid_config", `plugin "${name}": assertion kind "${kind}" must say runsIn: "runner" or "sandbox"`, {
      field: "runsIn",
    });
  if (typeof declared.grade !== "function" && typeof declared.gradeTogether !== "function")
    throw new SkillrigError("invalid_config", `plugin "${name}": assertion kind "${kind}" has no grade function`, { field: "grade" });
  if (typeof declared.schema !== "object" || declared.schema === null || Array.isArray(declared.schema))
    throw new SkillrigError("invalid_config", `plugin "${name}": assertion kind "${kind}" needs a JSON Schema object`, { field: "schema" });
  // The definition is stored as the base type: evals hands each kind only assertions its schema accepted.
  const stored = Object.freeze({ ...declared }) as unknown as AssertionKind;
  KIND_OWNERS.set(stored, { name, kind });
  return {
    name,
    kind,
    definition: stored,
    apply(runner) {
      runner.hooks.assertion.for(kind).tap(name, () => stored);
      runner.claim("assertion", kind, name, {
        runs_in: declared.runsIn,
        ...(declared.description ? { description: declared.description } : {}),
      });
    },
  };
}
