/**
 * Where runs go: the one rule every entry point asks (the CLI's commands, `skillrig serve` and its workers, solve,
 * eval, view, and `runJob` called as a library), so none decides the runs folder its own way.
 *
 *   1. `$SKILLRIG_RUNS_DIR` when set (CI, tests, a server that shares its runs with `skillrig view`)
 *   2. else the caller's own place, when it has one (`skillrig serve`: `<server.data_dir>/runs`)
 *   3. else `runs_dir` of the config, relative to the config file
 *   4. else `.skillrig/runs` beside the config file
 */
import { resolve } from "node:path";
import type { SkillrigConfig } from "./config/define-config.js";

/** The environment variable that overrides every other choice of runs folder. */
export const RUNS_DIR_ENV = "SKILLRIG_RUNS_DIR";

/** The runs folder when neither the environment nor the config names one, relative to the config file. */
export const DEFAULT_RUNS_DIR = ".skillrig/runs";

export interface RunsFolderOptions {
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The caller's own default, used instead of the config's (the jobs server's `<data_dir>/runs`). */
  fallback?: string;
}

/** The runs folder, absolute: see the module comment for the order. */
export function runsFolderOf(
  project: { config: Pick<SkillrigConfig, "runs_dir">; configDir: string },
  options: RunsFolderOptions = {},
): string {
  const fromEnv = (options.env ?? process.env)[RUNS_DIR_ENV];
  if (fromEnv) return resolve(fromEnv);
  if (options.fallback !== undefined) return resolve(options.fallback);
  return resolve(project.configDir, project.config.runs_dir ?? DEFAULT_RUNS_DIR);
}
