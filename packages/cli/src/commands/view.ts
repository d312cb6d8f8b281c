/**
 * `skillrig view [--port N] [--server URL]`: serves the web UI over the recorded runs (and a jobs server's jobs)
 * on 127.0.0.1, prints its URL, and runs until Ctrl-C. It opens no browser by itself.
 * `skillrig view --bundle DIR [--run ID ...]`: writes a static site of chosen runs instead (no server).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { runsFolderOf, SkillrigError } from "@skillrig/core";
import { startViewServer, writeBundle } from "@skillrig/view";
import type { CommandModule } from "../command.js";
import type { CommandContext } from "../context.js";
import { withInterrupts } from "../interrupts.js";

interface ViewOptions {
  port: string;
  server?: string;
  serverTokenEnv: string;
  runsDir?: string;
  bundle?: string;
  run?: string[];
  limit: string;
  force?: boolean;
}

async function bundle(ctx: CommandContext, options: ViewOptions): Promise<void> {
  if (options.server !== undefined) {
    throw new SkillrigError("usage", "--server cannot go with --bundle: a bundle has no jobs server's pages", { field: "--server" });
  }
  if (!/^[1-9][0-9]{0,5}$/.test(options.limit)) {
    throw new SkillrigError("usage", `--limit must be a whole number from 1, not "${options.limit}"`, { field: "--limit" });
  }
  const runner = options.runsDir !== undefined ? undefined : await ctx.runner();
  const runsDir = runner ? runsFolderOf(runner) : resolve(ctx.cwd, options.runsDir!);
  const written = await writeBundle({
    runsDir,
    // Paths under the project are written relative to it: the config's folder, or where the command ran.
    projectDir: runner?.configDir ?? ctx.cwd,
    outDir: resolve(ctx.cwd, options.bundle!),
    ...(options.run ? { runs: options.run } : {}),
    limit: Number(options.limit),
    force: options.force === true,
  });
  for (const l of written.left_out) ctx.out.warn(`${l.run}: ${l.path} left out of the bundle (${l.reason})`);
  ctx.out.result(
    { ...written, url: pathToFileURL(written.index).href },
    `wrote a bundle of ${written.runs.length} run(s) to ${written.dir}: open ${pathToFileURL(written.index).href}`,
  );
}

export const viewCommand: CommandModule = {
  register(program, context) {
    program
      .command("view")
      .description("Serve a web UI on 127.0.0.1 over the recorded runs (with --server, a jobs server's jobs), or write a static --bundle")
      .option("-p, --port <port>", "TCP port, 0 for any free one", "7878")
      .option("--server <url>", "a jobs server (skillrig serve) whose jobs to show and to submit jobs to")
      .option("--server-token-env <name>", "environment variable holding the jobs server's token", "SKILLRIG_SERVER_TOKEN")
      .option("--runs-dir <dir>", "the runs folder (default: runs_dir of the config, else .skillrig/runs)")
      .option("--bundle <dir>", "write a static site of chosen runs to this folder (opens from disk, no server) instead of serving")
      .option("--run <id...>", "with --bundle: the runs to include (default: the newest --limit runs)")
      .option("--limit <n>", "with --bundle and no --run: how many of the newest runs", "20")
      .option("--force", "with --bundle: write into a folder that is not empty (its index.html, data.js and assets/ are replaced)")
      .addHelpText(
        "after",
        "\nWith --json, prints {url, runs_dir, server} as one JSON document, then serves until Ctrl-C.\nWith --bundle, writes the site and exits; --json prints {dir, index, url, runs, left_out, bytes}.\n",
      )
      .action(async (options: ViewOptions, command) => {
        const ctx = context(command);
        if (options.bundle !== undefined) return bundle(ctx, options);
        if (options.run !== undefined || options.force) {
          throw new SkillrigError("usage", `${options.run !== undefined ? "--run" : "--force"} is for --bundle`, { field: "--bundle" });
        }
        if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) {
          throw new SkillrigError("usage", `--port must be a whole number from 0 to 65535, not "${options.port}"`, { field: "--port" });
        }
        let server: { url: string; token?: string } | undefined;
        if (options.server !== undefined) {
          let url: URL;
          try {
            url = new URL(options.server);
          } catch {
            throw new SkillrigError("usage", `--server "${options.server}" is not a URL`, {
              field: "--server",
              hint: "e.g. --server http://127.0.0.1:8765",
            });
          }
          if (url.protocol !== "http:" && url.protocol !== "https:") {
            throw new SkillrigError("usage", `--server "${options.server}": expected an http or https URL`, { field: "--server" });
          }
          const token = process.env[options.serverTokenEnv];
          server = { url: url.href.replace(/\/+$/, ""), ...(token ? { token } : {}) };
        }
        const runsDir = options.runsDir !== undefined ? resolve(ctx.cwd, options.runsDir) : runsFolderOf(await ctx.runner());
        let view: Awaited<ReturnType<typeof startViewServer>>;
        try {
          view = await startViewServer({ runsDir, port: Number(options.port), server });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
            throw new SkillrigError("usage", `port ${options.port} on 127.0.0.1 is in use`, {
              field: "--port",
              hint: "pass --port 0 for any free port",
            });
          }
          throw error;
        }
        ctx.out.result(
          { url: view.url, runs_dir: runsDir, server: server?.url ?? null },
          `skillrig view at ${view.url} (runs from ${runsDir}${server ? `; jobs server ${server.url}` : ""}); Ctrl-C stops it`,
        );
        await withInterrupts({}, async (interrupts) => {
          ctx.out.info(`${await interrupts.stopped}: stopping`);
          await view.close();
        });
      });
  },
};
