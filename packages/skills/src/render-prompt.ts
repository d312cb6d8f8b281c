/**
 * The prompt of a job and the SKILL.md the agent sees, both rendered with nunjucks from
 * `input`, `parameter` and the run context (`run_dir`, `skill_dir`, `workspace_dir`, `uploads_dir`, ...).
 *
 * Template choice: `entrypoint.prompts.<engine>` when the skill has one for the job's engine, else DEFAULT_PROMPT.
 * A plain Agent Skill renders nothing: its prompt is the request's `prompt`, its SKILL.md is installed as written.
 * Packages that write `{{ input.divisor }}` for a parameter (the reference fixtures do): when no input field has
 * that name, `input.divisor` renders the parameter's value and the job gets a warning. Such names are hidden
 * from iteration, so `input.items()` lists only real inputs.
 */
import { readFileSync } from "node:fs";
import { pointer, type JobWork, type PromptRendering } from "@skillrig/core";
import { displayPath } from "./paths.js";
import { outputInstructions } from "./skill-patch.js";
import { addHiddenGetter, renderTemplate, toTemplateValue } from "./template.js";

/** The default prompt: the spec's Inputs / Parameters blocks after a line that names the skill. */
export const DEFAULT_PROMPT = `Use the skill "{{ skill_id }}" (its instructions are in {{ skill_dir }}/SKILL.md) to do this job. Work in {{ run_dir }}.

# Inputs
{% for key, value in input.items() %}
- {{ key }}: {{ value }}
{% endfor %}

# Parameters
{% for key, value in parameter.items() %}
- {{ key }}: {{ value }}
{% endfor %}
`;

/** The template context for a job whose input and parameters are resolved (runJob puts them in work.context). */
export function templateContext(work: JobWork): Record<string, unknown> {
  const input = (work.context.input ?? {}) as Record<string, unknown>;
  const parameter = (work.context.parameter ?? {}) as Record<string, unknown>;
  const inputView = toTemplateValue(input) as Record<string, unknown>;
  for (const name of Object.keys(parameter)) {
    if (Object.hasOwn(input, name)) continue;
    addHiddenGetter(inputView, name, () => {
      work.warn(
        `a template wrote {{ input.${name} }}, but "${name}" is a parameter: rendered the parameter's value; write {{ parameter.${name} }}`,
      );
      return toTemplateValue(parameter[name]);
    });
  }
  return { ...work.context, input: inputView, parameter: toTemplateValue(parameter) };
}

export function renderJobPrompt(prompt: PromptRendering, work: JobWork): PromptRendering {
  const { skill, engine } = work;
  // A plain Agent Skill: the request's prompt as is, SKILL.md as written (no template, no output contract).
  if (skill.plain === true) {
    return { ...prompt, text: work.request.prompt ?? "", source: "request", skillMd: readFileSync(skill.skillMdFile, "utf8") };
  }
  const context = templateContext(work);
  const engineTemplate = skill.prompts[engine];
  let text: string;
  let source: string;
  let file: string | undefined;
  if (engineTemplate !== undefined) {
    file = `${displayPath(skill.runnerFile)}#${pointer("entrypoint", "prompts", engine)}`;
    text = renderTemplate(engineTemplate, context, file);
    source = `skill:${engine}`;
  } else {
    text = renderTemplate(DEFAULT_PROMPT, context, "(default prompt)");
    source = "default";
  }
  const skillMdLabel = displayPath(skill.skillMdFile);
  const skillMd =
    renderTemplate(readFileSync(skill.skillMdFile, "utf8"), context, skillMdLabel) +
    outputInstructions(skill, String(work.context.run_dir));
  return { ...prompt, text, source, file, skillMd };
}
