/**
 * What the CLI always offers, as data: the plugins it applies after the config's own (unless the config says
 * `builtins: false`) and the config sections of the packages it bundles. Each names a package the CLI depends on,
 * resolved from the CLI's own folder by core's `openProjectRunner`, which both the CLI (context.ts) and the server's
 * job workers (sent this list by `skillrig serve`) build their runner with. The plugins are imported only when a
 * command builds a runner, so `skillrig --version`, `--help` and commands that need no runner never load them.
 */
import { fileURLToPath } from "node:url";
import type { BuiltinImporter, ProjectBuiltins } from "@skillrig/core";

/**
 * How the CLI itself imports them: each a literal import, so the bundle inlines the packages it bundles
 * (scripts/bundle.mjs) and the CLI never loads a second copy as files. A worker thread, sent only the data, imports
 * them as files from `from`.
 */
const cliModules: Record<string, () => Promise<object>> = {
  "@skillrig/oracle/one-task": () => import("@skillrig/oracle/one-task"),
  "@skillrig/deliverable-script": () => import("@skillrig/deliverable-script"),
  "@skillrig/deliverable-cli": () => import("@skillrig/deliverable-cli"),
  "@skillrig/deliverable-function": () => import("@skillrig/deliverable-function"),
  "@skillrig/skills/plugin": () => import("@skillrig/skills/plugin"),
  "@skillrig/evals/assertion-kinds": () => import("@skillrig/evals/assertion-kinds"),
  "@skillrig/sandbox": () => import("@skillrig/sandbox"),
  "@skillrig/evals/config-section": () => import("@skillrig/evals/config-section"),
  "@skillrig/skills/config-section": () => import("@skillrig/skills/config-section"),
  "@skillrig/oracle/config-section": () => import("@skillrig/oracle/config-section"),
  "@skillrig/sandbox/config-section": () => import("@skillrig/sandbox/config-section"),
  "@skillrig/server/config-section": () => import("@skillrig/server/config-section"),
  "@skillrig/solve/config-section": () => import("@skillrig/solve/config-section"),
};

export const importCliModule: BuiltinImporter = async (specifier) => {
  const load = cliModules[specifier];
  // A module listed in cliBuiltins but not above is a mistake of this file (test/project-runner.test.ts checks both lists agree).
  if (load === undefined) throw new Error(`the CLI has no import for its built-in module "${specifier}"`);
  return (await load()) as Record<string, unknown>;
};

/** The modules importCliModule can import, for the test that every listed built-in has its import. */
export const cliModuleNames: readonly string[] = Object.keys(cliModules);

export const cliBuiltins: ProjectBuiltins = {
  from: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [
    { module: "@skillrig/oracle/one-task", export: "compareModesPlugin" },
    { module: "@skillrig/oracle/one-task", export: "builtinReporters" },
    { module: "@skillrig/deliverable-script" },
    { module: "@skillrig/deliverable-cli" },
    { module: "@skillrig/deliverable-function" },
    { module: "@skillrig/skills/plugin", export: "skillProtocolPlugin" },
    { module: "@skillrig/evals/assertion-kinds", export: "builtinAssertionKinds" },
    { module: "@skillrig/sandbox" }, // last: the default sandbox answers only when no other plugin does
  ],
  // Each from its package's light `config-section` entry, in the order config.schema.json lists them.
  sections: [
    { module: "@skillrig/evals/config-section", export: "evalsConfigSection" },
    { module: "@skillrig/skills/config-section", export: "costConfigSection" },
    { module: "@skillrig/oracle/config-section", export: "oracleConfigSection" },
    { module: "@skillrig/skills/config-section", export: "runConfigSection" },
    { module: "@skillrig/sandbox/config-section", export: "sandboxConfigSection" },
    {
      module: "@skillrig/server/config-section",
      export: "serverConfigSection",
      // The server is an optional peer (server-package.ts): without it the key stays known, and `skillrig serve` says what to install.
      optional: {
        section: "server",
        owner: "@skillrig/server (not installed)",
        description: "The jobs server's settings; checked when @skillrig/server is installed (npm i -D @skillrig/server).",
      },
    },
    { module: "@skillrig/skills/config-section", export: "skillsConfigSection" },
    { module: "@skillrig/solve/config-section", export: "solveConfigSection" },
  ],
};
