/**
 * Skill patching: the SKILL.md copied into the run workspace gets instructions generated from the output schema
 * appended, so the agent knows which artifact files to write where and what its final JSON must look like.
 */
import type { JsonSchema, SkillManifest } from "@skillrig/core";

/** The output schema as the agent should see it: without skillrig's vendor keywords. */
function publicSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(publicSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k.startsWith("x-") || k === "$schema" || k === "$id") continue;
    out[k] = publicSchema(v);
  }
  return out;
}

export function outputInstructions(skill: SkillManifest, runDir: string): string {
  const lines: string[] = ["", "", "---", "", "## Output contract (added by skillrig for this run)", ""];
  if (skill.artifacts.length > 0) {
    lines.push("### Files to write", "");
    lines.push(
      `Write each of these files into the run directory \`${runDir}\`, and put the file's absolute path in the named field of your final JSON:`,
      "",
    );
    for (const a of skill.artifacts) {
      lines.push(`- \`${a.field}\`: write \`${runDir}/${a.filename}\` (role: ${a.role}${a.required ? ", required" : ", optional"})`);
    }
    lines.push("");
  }
  lines.push("### Final result", "");
  const schema: JsonSchema = skill.schemas.output?.schema ?? { type: "object" };
  lines.push(
    "When you are done, your final message must be exactly one JSON object, in a ```json code block, that validates against this JSON Schema:",
    "",
    "```json",
    JSON.stringify(publicSchema(schema), null, 2),
    "```",
  );
  if (skill.artifacts.length > 0) {
    const example: Record<string, string> = {};
    for (const a of skill.artifacts) example[a.field] = `${runDir}/${a.filename}`;
    lines.push("", "For example, the file fields:", "", "```json", JSON.stringify(example, null, 2), "```");
  }
  const modes = Array.isArray(skill.runner.execution_modes) ? (skill.runner.execution_modes as string[]) : ["auto"];
  // An interactive-only skill converses by design; every other job runs unattended.
  if (!(modes.length === 1 && modes[0] === "interactive"))
    lines.push("", "Do not ask the user questions: decide yourself. Write nothing after the JSON block.");
  lines.push("");
  return lines.join("\n");
}
