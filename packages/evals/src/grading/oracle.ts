/**
 * `oracle` assertions: the code the agent left at `deliverable` (a path in outputs/) graded by the Task Oracle on
 * the cases of `task` (a task file in the skill, normally under evals/, which jobs never install), sandboxed like
 * every deliverable (`gradeSample`, as `skillrig solve` grades an engine's deliverable). Passed = every case passed.
 */
import { lstat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { isSkillrigError, type Runner } from "@skillrig/core";
import { gradeSample, loadTask, resolveDeliverable } from "@skillrig/oracle";
import type { DeterministicAssertion } from "../format.js";
import type { Verdict } from "./deterministic.js";
import { storedPath } from "../result-names.js";
import { outputPathParts } from "@skillrig/assertion-kit";

export interface OracleContext {
  runner: Runner;
  skillDir: string;
  outputsDir: string;
  signal?: AbortSignal;
}

/** The deliverable's absolute path when it is a file or folder inside outputs/ reached through no link, else why not. */
async function deliverablePath(outputsDir: string, path: string): Promise<{ path: string } | { reason: string }> {
  const parts = outputPathParts(path);
  if (typeof parts === "string") return { reason: `${path}: ${parts}` };
  let current = outputsDir;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    const shown = parts.slice(0, i + 1).join("/");
    const stats = await lstat(current).catch(() => undefined);
    if (!stats) return { reason: `the deliverable ${shown} does not exist in outputs/` };
    if (stats.isSymbolicLink()) return { reason: `the deliverable ${shown} is a symbolic link; links in outputs/ are never followed` };
    if (i < parts.length - 1 ? !stats.isDirectory() : !stats.isDirectory() && !stats.isFile())
      return { reason: `the deliverable ${shown} is not a ${i < parts.length - 1 ? "folder" : "file or folder"}` };
  }
  return { path: current };
}

export async function gradeOracle(assertion: Extract<DeterministicAssertion, { kind: "oracle" }>, ctx: OracleContext): Promise<Verdict> {
  const skillDir = resolve(ctx.skillDir);
  const taskFile = resolve(skillDir, assertion.task);
  const inSkill = relative(skillDir, taskFile);
  if (inSkill.startsWith(`..${sep}`) || inSkill === ".." || inSkill === "") {
    const why = `the task ${assertion.task} is not inside the skill folder`;
    return { passed: false, evidence: why, error: `oracle ${assertion.task}: ${why}` };
  }
  const found = await deliverablePath(ctx.outputsDir, storedPath(assertion.deliverable));
  if ("reason" in found) return { passed: false, evidence: found.reason };
  try {
    const loaded = await loadTask(taskFile, skillDir);
    const deliverable = await resolveDeliverable(ctx.runner, found.path, loaded.task, ctx.outputsDir).catch((error: unknown) => {
      if (isSkillrigError(error) && error.code === "usage") return error.message;
      throw error;
    });
    if (typeof deliverable === "string") return { passed: false, evidence: `the deliverable cannot be graded: ${deliverable}` };
    const graded = await gradeSample(ctx.runner, { loaded, deliverable, jobs: 1, signal: ctx.signal });
    if (!graded.report) {
      const why = `[${graded.error?.code}] ${graded.error?.message}`;
      return { passed: false, evidence: `the deliverable could not be graded: ${why}`, error: `oracle ${assertion.task}: ${why}` };
    }
    const { summary, cases } = graded.report;
    // Fail closed: a report that ends early (fewer results than the task has cases) is not a pass.
    const expected = loaded.task.tests.length;
    if (summary.total !== expected || cases.length !== expected) {
      const why = `the oracle's report has ${cases.length} case results (summary: ${summary.total}) for the task's ${expected} cases`;
      return { passed: false, evidence: why, error: `oracle ${assertion.task}: ${why}` };
    }
    const passed = summary.total > 0 && summary.passed === summary.total;
    const failure = cases.find((c) => c.status !== "passed");
    const first = failure
      ? `; first failure: ${failure.name}: ${failure.status}${failure.message ? `: ${failure.message.slice(0, 200)}` : ""}`
      : "";
    return { passed, evidence: `${summary.passed}/${summary.total} cases passed${first}` };
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    const why = `[${error.code}] ${error.message}`;
    return { passed: false, evidence: `the oracle could not grade: ${why}`, error: `oracle ${assertion.task}: ${why}` };
  }
}
