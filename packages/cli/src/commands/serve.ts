import { SkillrigError } from "@skillrig/core";
import type { ServerOverrides } from "@skillrig/server";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { withInterrupts } from "../interrupts.js";
import { withServer } from "../server-package.js";

interface ServeOptions {
  host?: string;
  port?: string;
  dataDir?: string;
  concurrency?: string;
  onRestart?: string;
  role?: string;
  log?: boolean;
  workers?: boolean;
}

function wholeNumber(value: string | undefined, option: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new SkillrigError("invalid_config", `${option} must be a whole number of at least ${min}, not "${value}"`, { field: option });
  }
  return Number(value);
}

export const serveCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("serve")
      .description("Serve skill jobs and oracle runs over HTTP (SQLite or Redis queue, uploads, live events, artifacts)")
      .option("--host <host>", "address to bind (default server.host or 127.0.0.1; other than loopback needs server.tokens)")
      .option("-p, --port <port>", "TCP port, 0 for any free one (default server.port or 8765)")
      .option("--data-dir <dir>", "where the SQLite file, uploads and run folders live (default server.data_dir or .skillrig/server)")
      .option("--concurrency <n>", "jobs run at once (default server.concurrency or 2)")
      .option("--on-restart <fail|requeue>", "what happens to jobs that were running when the server stopped (default fail)")
      .option(
        "--role <all|api|worker>",
        "all: HTTP API and job workers (default); api: HTTP only; worker: runs jobs only (api and worker need server.queue redis)",
      )
      .option("--log", "log every request on stdout")
      .option("--no-workers", "run jobs on the server's own thread instead of worker threads")
      .action(async (options: ServeOptions, command) => {
        const ctx = context(command);
        const overrides: ServerOverrides = {};
        if (options.host !== undefined) overrides.host = options.host;
        const port = wholeNumber(options.port, "--port", 0);
        if (port !== undefined) overrides.port = port;
        const concurrency = wholeNumber(options.concurrency, "--concurrency", 1);
        if (concurrency !== undefined) overrides.concurrency = concurrency;
        if (options.dataDir !== undefined) overrides.dataDir = options.dataDir;
        if (options.onRestart !== undefined) {
          if (options.onRestart !== "fail" && options.onRestart !== "requeue") {
            throw new SkillrigError("invalid_config", `--on-restart must be "fail" or "requeue", not "${options.onRestart}"`, {
              field: "--on-restart",
            });
          }
          overrides.onRestart = options.onRestart;
        }
        if (options.role !== undefined) {
          if (options.role !== "all" && options.role !== "api" && options.role !== "worker") {
            throw new SkillrigError("invalid_config", `--role must be "all", "api" or "worker", not "${options.role}"`, {
              field: "--role",
            });
          }
          overrides.role = options.role;
        }
        // Before the runner: without @skillrig/server installed this is a coded error naming what to install.
        const { startServer } = await withServer("skillrig serve", () => import("@skillrig/server"));
        const runner = await ctx.runner();
        // Jobs run in worker threads that build their runner as this one was built: the config plus these built-ins.
        const workers = options.workers === false ? undefined : { builtins: (await import("../builtins.js")).cliBuiltins };
        const server = await startServer({ runner, overrides, logger: options.log === true, workers });
        const { failed, requeued } = server.recovered;
        if (failed.length + requeued.length > 0) {
          ctx.out.info(
            `jobs left running by the previous server: ${failed.length} marked failed (interrupted), ${requeued.length} requeued`,
          );
        }
        const { role, queue } = server.settings;
        const store = server.sqliteDriver ? `sqlite through ${server.sqliteDriver.about}` : queue.backend;
        ctx.out.result(
          {
            url: server.url,
            role,
            backend: queue.backend,
            sqlite_driver: server.sqliteDriver?.name ?? null,
            data_dir: server.settings.dataDir,
            concurrency: server.settings.concurrency,
            recovered: server.recovered,
            pid: process.pid,
          },
          role === "worker"
            ? `skillrig worker running ${server.settings.concurrency} jobs at once from ${store} (data in ${server.settings.dataDir})`
            : `skillrig server (${role}, ${store}) listening on ${server.url} (data in ${server.settings.dataDir}; API at ${server.url}/v1/openapi.json)`,
        );
        // Ctrl-C or a service manager's SIGTERM stops it; a second signal while it closes ends it at once.
        await withInterrupts({}, async (interrupts) => {
          ctx.out.info(`${await interrupts.stopped}: stopping; running jobs are left for the next start to settle`);
          await server.close();
        });
        setExit(ExitCode.Success);
      });
  },
};
