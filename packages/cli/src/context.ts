/**
 * What every command shares: the global options, the loaded config, and the runner built from it.
 */
import { loadProjectConfig, openProjectRunner, type LoadedConfig, type Runner } from "@skillrig/core";
import { cliBuiltins, importCliModule } from "./builtins.js";
import { createOutput, type Output, type Streams } from "./output.js";

export interface GlobalOptions {
  config?: string;
  json?: boolean;
}

export interface CommandContext {
  cwd: string;
  global: GlobalOptions;
  out: Output;
  /** Loads the config (once) and builds the runner with the built-in plugins. */
  runner(): Promise<Runner>;
  config(): Promise<LoadedConfig>;
  /** Closes the runner if one was built (`runner.close()`: warm runtimes stop); main() calls it after every command. */
  close(): Promise<void>;
}

export function createContext(global: GlobalOptions, cwd = process.cwd(), streams?: Streams): CommandContext {
  let loaded: Promise<LoadedConfig> | undefined;
  let runner: Promise<Runner> | undefined;
  const ctx: CommandContext = {
    cwd,
    global,
    out: createOutput(global.json ?? false, streams),
    config() {
      // The bundled packages' sections are imported when a config is loaded, not when a command's --help is shown.
      // Their composition's validator was compiled when the CLI was built (scripts/write-config-schema.mjs).
      loaded ??= import("./config.validate.js").then((precompiled) =>
        loadProjectConfig({
          cwd,
          configPath: global.config,
          builtins: cliBuiltins,
          importModule: importCliModule,
          precompiled: [precompiled],
        }),
      );
      return loaded;
    },
    runner() {
      // Built as the server's job workers build theirs (core's openProjectRunner, the same built-ins).
      runner ??= ctx
        .config()
        .then((config) => openProjectRunner({ cwd, builtins: cliBuiltins, importModule: importCliModule, loaded: config }));
      return runner;
    },
    async close() {
      const built = await runner?.catch(() => undefined);
      await built?.close();
    },
  };
  return ctx;
}
