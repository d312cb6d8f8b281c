/**
 * SKILL.md front matter against the Agent Skills specification (agentskills/agentskills, docs/specification.mdx):
 * the six fields, their types and limits, and the `name` rules. Each problem names SKILL.md, the field's JSON
 * pointer and the rule, and has `source: "agent-skills-spec"`, so `skillrig skills validate` can tell these from
 * skillrig's own checks (assets/runner.json, schemas, templates).
 *
 * A skill that breaks only these rules still loads and runs in skillrig; `skills validate` fails on it, because
 * another engine that follows the specification may refuse it.
 */
import { pointer, type Violation } from "@skillrig/core";

/** Who defines a check: the Agent Skills specification, or skillrig itself. */
export type ProblemSource = "agent-skills-spec" | "skillrig";

/** A problem `checkSkill` reports, with the rule's origin. */
export interface SkillProblem extends Violation {
  source: ProblemSource;
}

/** The front matter fields the specification defines; any other top-level field is a violation. */
export const SPEC_FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"] as const;

export const SPEC_LIMITS = { name: 64, description: 1024, compatibility: 500 } as const;

/** Lowercase letters a-z, digits 0-9 and hyphens only (the specification's character rule for `name`). */
const NAME_CHARACTERS = /^[a-z0-9-]+$/;

/** Characters as the specification counts them (Unicode code points, not UTF-16 units). */
function lengthOf(text: string): number {
  return [...text].length;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/**
 * Checks parsed front matter. `folderName` is the skill folder's name (`name` must equal it). A missing or empty
 * `name` / `description` is not reported here: `parseFrontMatter` reports it (skillrig needs both as well).
 */
export function checkSpecFrontMatter(data: Record<string, unknown>, folderName: string, file: string): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const problem = (field: string, rule: string, message: string, at = pointer(field)) =>
    problems.push({ file, pointer: at, field, rule, message, source: "agent-skills-spec" });

  for (const key of Object.keys(data)) {
    if (!(SPEC_FIELDS as readonly string[]).includes(key)) {
      problem(
        key,
        "unknown-field",
        `front matter field "${key}" is not one of the specification's fields (${SPEC_FIELDS.join(", ")}); put your own keys under metadata`,
      );
    }
  }

  const name = data.name;
  if (isNonEmptyString(name)) {
    if (lengthOf(name) > SPEC_LIMITS.name) {
      problem("name", "name-length", `name is ${lengthOf(name)} characters; the limit is ${SPEC_LIMITS.name}`);
    }
    if (!NAME_CHARACTERS.test(name)) {
      problem(
        "name",
        "name-characters",
        `name "${name}" may contain only lowercase letters a-z, digits 0-9 and hyphens (no uppercase, "_", spaces or other characters)`,
      );
    }
    if (name.startsWith("-") || name.endsWith("-")) {
      problem("name", "name-hyphen-ends", `name "${name}" must not start or end with a hyphen`);
    }
    if (name.includes("--")) {
      problem("name", "name-consecutive-hyphens", `name "${name}" must not contain consecutive hyphens ("--")`);
    }
    if (name !== folderName) {
      problem("name", "name-matches-folder", `name "${name}" must equal the skill's folder name "${folderName}"`);
    }
  }

  const description = data.description;
  if (isNonEmptyString(description) && lengthOf(description) > SPEC_LIMITS.description) {
    problem(
      "description",
      "description-length",
      `description is ${lengthOf(description)} characters; the limit is ${SPEC_LIMITS.description}`,
    );
  }

  if ("license" in data && typeof data.license !== "string") {
    problem(
      "license",
      "license-type",
      `license must be a string (a license name or a bundled license file), not ${typeName(data.license)}`,
    );
  }

  if ("compatibility" in data) {
    const compatibility = data.compatibility;
    if (typeof compatibility !== "string") {
      problem("compatibility", "compatibility-type", `compatibility must be a string, not ${typeName(compatibility)}`);
    } else if (lengthOf(compatibility) < 1 || lengthOf(compatibility) > SPEC_LIMITS.compatibility) {
      problem(
        "compatibility",
        "compatibility-length",
        `compatibility must be 1-${SPEC_LIMITS.compatibility} characters; it is ${lengthOf(compatibility)}`,
      );
    }
  }

  if ("metadata" in data) {
    const metadata = data.metadata;
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      problem("metadata", "metadata-type", `metadata must be a mapping from string keys to string values, not ${typeName(metadata)}`);
    } else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== "string") {
          problem(
            "metadata",
            "metadata-value",
            `metadata "${key}" must be a string, not ${typeName(value)}` +
              (typeof value === "number" || typeof value === "boolean" ? ` (quote it: ${key}: "${value}")` : ""),
            pointer("metadata", key),
          );
        }
      }
    }
  }

  if ("allowed-tools" in data && typeof data["allowed-tools"] !== "string") {
    problem(
      "allowed-tools",
      "allowed-tools-type",
      `allowed-tools must be one space-separated string (e.g. "Bash(git:*) Read"), not ${typeName(data["allowed-tools"])}`,
    );
  }

  return problems;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `a ${typeof value}`;
}
