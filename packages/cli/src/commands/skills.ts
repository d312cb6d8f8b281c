/** `skillrig skills list|show|validate`: the skill packages in the configured roots (see @skillrig/skills). */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { SkillrigError, type SkillManifest, type Violation } from "@skillrig/core";
import {
  checkSkill,
  checkSkillRoots,
  findSkills,
  isSafeSkillId,
  loadSkill,
  resolveSkill,
  skillRoots,
  type SkillCheck,
  type SkillProblem,
} from "@skillrig/skills";
import { inputFields, parameterFields } from "@skillrig/skills/protocol";
import type { CommandModule } from "../command.js";
import type { CommandContext } from "../context.js";
import { ExitCode } from "../exit-codes.js";

/** A skill named on the command line: an id in the configured roots, or a path to a package folder. */
export async function skillFromArgument(ctx: CommandContext, arg: string): Promise<SkillManifest> {
  if (isSafeSkillId(arg)) return resolveSkill(await ctx.runner(), arg);
  const path = resolve(ctx.cwd, arg);
  if (!existsSync(path)) {
    throw new SkillrigError(
      "skill_not_found",
      `"${arg}" is neither a skill id (lowercase letters, digits, "-", "_") nor an existing skill package folder`,
      { field: "skill" },
    );
  }
  return loadSkill(path);
}

function describeProblem(v: Violation): string {
  const where = [v.file, v.pointer, v.line !== undefined ? `line ${v.line}` : undefined]
    .filter((x) => x !== undefined && x !== "")
    .join(" ");
  return `${where}: ${v.message}`;
}

/** Whose rule a problem is: the Agent Skills specification's (with the rule's name) or skillrig's own. */
function problemSource(p: SkillProblem): string {
  return p.source === "agent-skills-spec" ? `[Agent Skills spec${p.rule ? `: ${p.rule}` : ""}]` : "[skillrig]";
}

function summary(m: SkillManifest) {
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    description: m.description,
    engines: m.engines,
    dir: m.dir,
    kind: skillKind(m),
  };
}

/** "plain": a plain Agent Skill (SKILL.md only; its job takes a prompt, any engine); "runner": with assets/runner.json. */
function skillKind(m: SkillManifest): "plain" | "runner" {
  return m.plain === true ? "plain" : "runner";
}

const PLAIN_NOTE = "plain Agent Skill: no runner.json; a job takes --prompt, runs on any engine, answers with text";

function details(m: SkillManifest) {
  return {
    ...summary(m),
    inputs: inputFields(m),
    parameters: parameterFields(m),
    artifacts: m.artifacts,
    prompts: Object.keys(m.prompts),
    runtime: m.runtime,
    schemas: Object.fromEntries(Object.entries(m.schemas).map(([k, v]) => [k, v?.file])),
  };
}

/** Folders to validate: a package folder itself, or a root whose sub-folders are packages. */
function expandValidateTargets(dirs: string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    const isPackage = existsSync(join(dir, "SKILL.md")) || existsSync(join(dir, "assets", "runner.json"));
    if (isPackage || !existsSync(dir) || !statSync(dir).isDirectory()) out.push(dir);
    else {
      const found = findSkills([dir]);
      if (found.length === 0) out.push(dir);
      else out.push(...found.map((f) => f.dir));
    }
  }
  return out;
}

export const skillsCommand: CommandModule = {
  register(program, context, setExit) {
    const skills = program.command("skills").description("List, show and validate skill packages");

    skills
      .command("list")
      .description("List the skill packages in the configured roots (skills.roots, default ./skills)")
      .action(async (_options, command: Command) => {
        const ctx = context(command);
        const runner = await ctx.runner();
        checkSkillRoots(runner);
        const checks = findSkills(skillRoots(runner)).map((f) => checkSkill(f.dir));
        const rows = checks.map((c) =>
          c.manifest
            ? { ...summary(c.manifest), valid: c.errors.length === 0, problems: c.errors.length }
            : { id: c.dir.split("/").pop(), dir: c.dir, valid: false, problems: c.errors.length },
        );
        const human =
          rows.length === 0
            ? `no skills in ${skillRoots(runner).join(", ")}`
            : rows
                .map((r) =>
                  "name" in r
                    ? `${r.id}${r.version ? `@${r.version}` : ""}  ${r.name}${r.engines.length ? `  [${r.engines.join(", ")}]` : ""}${r.kind === "plain" ? "  (plain Agent Skill)" : ""}\n    ${r.description}` +
                      (r.valid ? "" : `\n    (runs, but not valid: ${r.problems} problem(s); run: skillrig skills validate ${r.dir})`)
                    : `${r.id}  (invalid: ${r.problems} problem(s); run: skillrig skills validate ${r.dir})`,
                )
                .join("\n");
        ctx.out.result(rows, human);
        setExit(ExitCode.Success);
      });

    skills
      .command("show <skill>")
      .description("Show a skill's inputs, parameters, artifacts, prompts and runtime (an id, or a path to the package)")
      .action(async (skill: string, _options, command: Command) => {
        const ctx = context(command);
        const d = details(await skillFromArgument(ctx, skill));
        const lines = [
          `${d.id}${d.version ? `@${d.version}` : ""}: ${d.name}`,
          `  ${d.description}`,
          `  folder: ${d.dir}`,
          `  engines: ${d.engines.length ? d.engines.join(", ") : "any"}`,
          ...(d.kind === "plain" ? [`  kind: ${PLAIN_NOTE}`] : []),
          "  inputs:",
          ...d.inputs.map(
            (f) =>
              `    ${f.name} (${f.source}${f.required ? ", required" : ""}${f.extensions ? `, ${f.extensions.join(" ")}` : ""})${f.description ? `: ${f.description}` : ""}`,
          ),
          "  parameters:",
          ...d.parameters.map(
            (p) =>
              `    ${p.name} (${p.type ?? "any"}${p.required ? ", required" : ""}${p.default !== undefined ? `, default ${JSON.stringify(p.default)}` : ""})${p.description ? `: ${p.description}` : ""}`,
          ),
          "  artifacts:",
          ...d.artifacts.map((a) => `    ${a.field} -> ${a.filename} (role ${a.role}${a.required ? ", required" : ""})`),
          `  prompt templates: ${d.prompts.length ? d.prompts.join(", ") : "default only"}`,
          `  runtime: ${d.runtime ? JSON.stringify(d.runtime) : "none"}`,
        ];
        ctx.out.result(d, lines.join("\n"));
        setExit(ExitCode.Success);
      });

    skills
      .command("validate [dirs...]")
      .description("Check skill packages and report every problem (default: all packages in the configured roots); exit 2 on any")
      .action(async (dirs: string[], _options, command: Command) => {
        const ctx = context(command);
        let targets: string[];
        if (dirs.length > 0) targets = expandValidateTargets(dirs.map((d) => resolve(ctx.cwd, d)));
        else {
          const runner = await ctx.runner();
          checkSkillRoots(runner);
          targets = findSkills(skillRoots(runner)).map((f) => f.dir);
        }
        const checks: SkillCheck[] = targets.map((t) => checkSkill(t));
        const failed = checks.filter((c) => c.errors.length > 0);
        const human = checks
          .map((c) => {
            const head = `${c.errors.length > 0 ? "FAIL" : "ok  "} ${c.manifest?.id ?? c.dir}${c.manifest?.plain ? ` (${PLAIN_NOTE})` : ""}`;
            const problems = [
              ...c.errors.map((e) => `    error: ${describeProblem(e)} ${problemSource(e)}`),
              ...c.warnings.map((w) => `    warning: ${describeProblem(w)} ${problemSource(w)}`),
            ];
            return [head, ...problems].join("\n");
          })
          .concat(`${checks.length - failed.length} of ${checks.length} skill package(s) valid`)
          .join("\n");
        ctx.out.result(
          {
            valid: failed.length === 0,
            skills: checks.map((c) => ({
              dir: c.dir,
              id: c.manifest?.id,
              ...(c.manifest ? { kind: skillKind(c.manifest) } : {}),
              valid: c.errors.length === 0,
              errors: c.errors,
              warnings: c.warnings,
            })),
          },
          checks.length === 0 ? "no skill packages found" : human,
        );
        setExit(failed.length > 0 || checks.length === 0 ? ExitCode.InvalidInput : ExitCode.Success);
      });
  },
};
