/**
 * The protocol's `job.prepareRuntime` tap: a skill that lists `runtime.dependencies` gets its Python environment
 * (python-env.ts), its bin first on the engine's PATH, VIRTUAL_ENV set, and its folder readable inside the jail.
 */
import { resolve } from "node:path";
import type { JobRuntime, JobWork, Runner } from "@skillrig/core";
import { ensurePythonEnv } from "./python-env.js";

export async function preparePythonRuntime(runner: Runner, runtime: JobRuntime, work: JobWork): Promise<JobRuntime> {
  const dependencies = work.skill.runtime?.dependencies ?? [];
  if (dependencies.length === 0) return runtime;
  const py = runner.config.skills?.python ?? {};
  const env = await ensurePythonEnv(dependencies, {
    interpreter: py.interpreter,
    version: work.skill.runtime?.version,
    findLinks: (py.find_links ?? []).map((f) => resolve(runner.configDir, f)),
    indexUrl: py.index_url,
    envDir: resolve(runner.configDir, py.env_dir ?? ".skillrig/python-envs"),
    signal: work.signal,
  });
  for (const warning of env.warnings) work.warn(warning);
  work.emit({
    type: "log",
    stream: "skillrig",
    line: `${env.reused ? "reusing" : "built"} Python ${env.pythonVersion} environment ${env.dir} for ${dependencies.join(", ")}`,
  });
  return {
    env: { ...runtime.env, PATH: `${env.bin}:${runtime.env.PATH ?? process.env.PATH ?? ""}`, VIRTUAL_ENV: env.dir },
    readOnly: [...runtime.readOnly, env.dir],
    context: { ...runtime.context, python_env: env.dir },
  };
}
