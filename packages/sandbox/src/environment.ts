/**
 * The environment deliverable code sees: a small allow-list, never the parent's variables
 * (API keys, tokens and the like stay outside). Callers add what the code needs through `env`.
 */

export const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

export interface EnvironmentOptions {
  /** The case folder: HOME and TMPDIR point into it. */
  cwd: string;
  /** Folders put in front of the system PATH (the interpreter's bin folder). */
  pathPrefix?: string[];
  /** The caller's additions (win over the defaults). */
  extra?: Record<string, string>;
}

export function scrubbedEnvironment(options: EnvironmentOptions): Record<string, string> {
  const path = [...(options.pathPrefix ?? []), SYSTEM_PATH].join(":");
  return {
    PATH: path,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    HOME: options.cwd,
    TMPDIR: options.cwd,
    // Deliverables are judged on what they print: unbuffered, UTF-8 output and no .pyc files in the case folder.
    PYTHONUNBUFFERED: "1",
    PYTHONIOENCODING: "utf-8",
    PYTHONDONTWRITEBYTECODE: "1",
    ...(options.extra ?? {}),
  };
}
