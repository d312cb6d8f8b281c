/**
 * The steps of a job, in the order runJob takes them, each through its hook: resolve the inputs, render the prompt,
 * prepare the runtime, run the engine, collect the output. Each takes the job and what the step before produced,
 * and returns its own typed result or throws the SkillrigError that ends the job.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { SkillrigError, type EngineSucceeded, type JobRuntime, type PromptRendering, type Runner, type Violation } from "@skillrig/core";
import { collectionError, engineError, requestError } from "./job-errors.js";
import { recordResolvedInputs, type JobRecord } from "./job-record.js";
import { installSkill } from "./run-folder.js";

export interface ResolvedInputs {
  input: Record<string, unknown>;
  parameter: Record<string, unknown>;
}

/** `job.resolveInput`: file inputs from uploads/, inline inputs, parameter defaults, both schemas checked. */
export async function resolveInputs(runner: Runner, job: JobRecord, uploadProblems: Violation[]): Promise<ResolvedInputs> {
  const { work } = job;
  const resolution = await runner.hooks.job.resolveInput.promise(
    { value: {}, violations: uploadProblems, parameter: {}, warnings: [] },
    work,
  );
  for (const warning of resolution.warnings ?? []) work.warn(warning);
  if (resolution.violations.length > 0) throw requestError(resolution.violations);
  work.context.input = resolution.value;
  work.context.parameter = resolution.parameter;
  recordResolvedInputs(job, resolution.value, resolution.parameter);
  return { input: resolution.value, parameter: resolution.parameter };
}

/** `job.renderPrompt`: prompt.md, and the patched SKILL.md installed in the workspace (as `skill_install` says). */
export async function renderPrompt(runner: Runner, job: JobRecord): Promise<PromptRendering> {
  const { work, result } = job;
  const prompt = await runner.hooks.job.renderPrompt.promise({ text: "", source: "none" }, work);
  writeFileSync(work.run.promptFile, prompt.text);
  if (prompt.skillMd !== undefined) {
    writeFileSync(resolve(work.run.root, "SKILL.patched.md"), prompt.skillMd);
    installSkill(work.run, work.skill.id, prompt.skillMd, work.skillInstall);
  }
  result.prompt = prompt.text;
  return prompt;
}

/** `job.prepareRuntime`: what the engine's process needs beyond the run folder (a skill's Python environment). */
export async function prepareRuntime(runner: Runner, job: JobRecord): Promise<JobRuntime> {
  const runtime = await runner.hooks.job.prepareRuntime.promise({ env: {}, readOnly: [], context: {} }, job.work);
  Object.assign(job.work.context, runtime.context);
  return runtime;
}

/**
 * `job.execute[engine]`: the engine plugin runs the agent. Its outcome's usage, version, confinement, warnings and
 * raw output go into the result and the run folder whatever the end; a failed run ends the job with its error.
 */
export async function runEngine(
  runner: Runner,
  job: JobRecord,
  inputs: ResolvedInputs,
  prompt: PromptRendering,
  runtime: JobRuntime,
): Promise<EngineSucceeded> {
  const { work, result } = job;
  const started = Date.now();
  const outcome = await runner.hooks.job.execute.for(work.engine).promise({ work, runtime, prompt, ...inputs });
  job.engineMs = Date.now() - started;
  // Set whenever the engine ran, empty when the agent activated no skill.
  result.skills_activated = [...job.skillsActivated];
  // Claimed before the run folder was made (checkJobRequest); a tap that returns nothing is a broken engine plugin.
  if (!outcome) throw new SkillrigError("engine_not_found", `no plugin ran engine "${work.engine}" for this job`, { field: "engine" });
  result.usage = outcome.usage;
  // Priced by the engine (engine-kit's price table); an engine that says nothing of cost is unpriced, never 0.
  result.cost_usd = typeof outcome.usage?.costUsd === "number" ? outcome.usage.costUsd : "unpriced";
  result.engine_version = outcome.engineVersion;
  if (outcome.confinement) result.engine_confinement = outcome.confinement;
  for (const warning of outcome.warnings ?? []) work.warn(warning);
  if (outcome.rawOutput !== undefined) writeFileSync(resolve(work.run.logs, "raw-output.txt"), outcome.rawOutput);
  for (const repair of outcome.repairs ?? []) work.warn(`engine output repaired: ${repair}`);
  if (!outcome.ok) {
    if (outcome.failure.infrastructure) result.infrastructure_failure = outcome.failure.infrastructure;
    throw engineError(outcome, work.engine);
  }
  return outcome;
}

/** `job.collectArtifacts`: artifacts copied into artifacts/, the output checked against its schema, output.json. */
export async function collectOutput(runner: Runner, job: JobRecord, outcome: EngineSucceeded): Promise<void> {
  const { work, result } = job;
  const collection = await runner.hooks.job.collectArtifacts.promise({ output: outcome.output, artifacts: [], problems: [] }, work);
  result.output = collection.output;
  result.artifacts = collection.artifacts;
  if (collection.output !== undefined) writeFileSync(work.run.outputFile, `${JSON.stringify(collection.output, null, 2)}\n`);
  if (collection.problems.length > 0) throw collectionError(collection.problems, work.run.outputFile);
}
