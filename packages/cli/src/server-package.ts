/**
 * @skillrig/server is an optional peer of the CLI: it brings fastify, a SQLite driver, BullMQ and ioredis,
 * which a project that only runs `skillrig test` should not install. `skillrig serve` and `--server URL` load it
 * through here, and a project without it gets a coded error saying what to install, not a module-not-found trace.
 */
import { addDevDependencyCommand, SkillrigError } from "@skillrig/core";

const SERVER = "@skillrig/server";

/** True when `error` is Node's "Cannot find package '@skillrig/server'" (not a module missing inside the server). */
function serverMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "ERR_MODULE_NOT_FOUND" && typeof message === "string" && message.includes(`'${SERVER}'`);
}

function notInstalled(what: string): SkillrigError {
  return new SkillrigError("plugin_not_found", `${what} needs ${SERVER}, which is not installed in this project`, {
    // In the project's own package manager (its lockfile says which), from the working directory the CLI runs in.
    hint: `${addDevDependencyCommand(process.cwd(), `${SERVER}@^1`)} (the jobs server is an optional peer of @skillrig/cli)`,
  });
}

/** `load()` (an import of the server or of a module that imports it), with a missing server named for `what`. */
export async function withServer<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (serverMissing(error)) throw notInstalled(what);
    throw error;
  }
}

/** remote-run.ts (the client of a jobs server, which imports @skillrig/server), for `--server URL`. */
export function loadRemoteRun(): Promise<typeof import("./remote-run.js")> {
  return withServer("--server URL", () => import("./remote-run.js"));
}
