/**
 * The skillrig command line. Exit codes: 0 success, 1 the work ran and something failed, 2 invalid input,
 * config or usage (see exit-codes.ts).
 *
 * Start-up is kept small: every command is listed here with its one-line description and imports its module (and
 * with it core, plugins and heavy dependencies) only when it is the command being run; `--version` and `--help`
 * import none of them.
 */
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import type { CommandModule } from "./command.js";
import type { CommandContext } from "./context.js";
import { ExitCode } from "./exit-codes.js";

interface LazyCommand {
  name: string;
  description: string;
  load(): Promise<CommandModule>;
}

/** One line per command: name, the description `skillrig --help` lists, and the module that defines it. */
const COMMANDS: LazyCommand[] = [
  {
    name: "test",
    description: "Grade deliverables against task files: one task, or a suite of many tasks and samples with pass@k",
    load: async () => (await import("./commands/test.js")).testCommand,
  },
  {
    name: "run",
    description: "Run a skill as a job with an engine: inputs, uploaded files, parameters, prompt, output, artifacts",
    load: async () => (await import("./commands/run.js")).runCommand,
  },
  {
    name: "eval",
    description: "Run a skill's evals with and without the skill on real engines, graded per assertion, and its trigger evals",
    load: async () => (await import("./commands/eval.js")).evalCommand,
  },
  {
    name: "solve",
    description: "Have an engine write the deliverable for a task, then grade it on the task's hidden tests",
    load: async () => (await import("./commands/solve.js")).solveCommand,
  },
  {
    name: "serve",
    description: "Serve skill jobs and oracle runs over HTTP (SQLite queue, uploads, live events, artifacts)",
    load: async () => (await import("./commands/serve.js")).serveCommand,
  },
  {
    name: "skills",
    description: "List, show and validate skill packages",
    load: async () => (await import("./commands/skills.js")).skillsCommand,
  },
  {
    name: "plugins",
    description: "Show the config file in use, the plugins applied (in order) and what each claims",
    load: async () => (await import("./commands/plugins.js")).pluginsCommand,
  },
  {
    name: "runs",
    description: "List, show, compare (diff) and clean the recorded runs (the runs folder, .skillrig/runs)",
    load: async () => (await import("./commands/runs.js")).runsCommand,
  },
  {
    name: "view",
    description: "Serve a web UI on 127.0.0.1 over the recorded runs (with --server, a jobs server's jobs), or write a static --bundle",
    load: async () => (await import("./commands/view.js")).viewCommand,
  },
  {
    name: "config",
    description: "Print the JSON Schema of this project's config (with its plugins' sections), list its sections",
    load: async () => (await import("./commands/config.js")).configCommand,
  },
  {
    name: "init",
    description: "Scaffold a skillrig project here: a config, an example task and an example skill",
    load: async () => (await import("./commands/init.js")).initCommand,
  },
];

const version: string = createRequire(import.meta.url)("../package.json").version;

/** Global options that take a value: their value is not the command name. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(["-c", "--config"]);

/** The command `argv` runs (`help <name>` counts as `<name>`), found without parsing the command's own options. */
export function commandNamed(argv: string[]): string | undefined {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) words.push(arg);
  }
  return words[0] === "help" ? words[1] : words[0];
}

export interface MainOptions {
  cwd?: string;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let exitCode: number = ExitCode.Success;
  const program = new Command("skillrig")
    .description("Run agent skills as jobs and judge what agents deliver.")
    .version(version, "-v, --version")
    .option("-c, --config <file>", "config file (default: skillrig.config.* found walking up from the working directory)")
    .option("--json", "machine-readable JSON on stdout")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => stdout.write(s),
      writeErr: (s) => stderr.write(s),
    })
    .addHelpText(
      "after",
      "\nExit codes:\n  0  success\n  1  the work ran and something failed (a test case, a job)\n  2  invalid input, config or usage\n",
    );

  const setExit = (code: number) => {
    exitCode = code;
  };
  const named = commandNamed(argv);
  // Every context a command made: their runners are closed when the command is done (warm runtimes stop).
  const created: CommandContext[] = [];
  for (const entry of COMMANDS) {
    if (entry.name !== named) {
      // Listed for --help only; never run (the command being run is the one registered in full below).
      program.command(entry.name).description(entry.description);
      continue;
    }
    const [module, { createContext }] = await Promise.all([entry.load(), import("./context.js")]);
    const contexts = new WeakMap<Command, CommandContext>();
    const context = (command: Command): CommandContext => {
      let ctx = contexts.get(command);
      if (!ctx) {
        ctx = createContext(command.optsWithGlobals(), options.cwd, { stdout, stderr });
        contexts.set(command, ctx);
        created.push(ctx);
      }
      return ctx;
    };
    module.register(program, context, setExit);
  }
  for (const sub of program.commands)
    sub.exitOverride().configureOutput({ writeOut: (s) => stdout.write(s), writeErr: (s) => stderr.write(s) });

  try {
    await program.parseAsync(argv, { from: "user" });
    await closeAll(created);
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.InvalidInput;
    }
    return exitCode;
  } catch (error) {
    await closeAll(created);
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
        return ExitCode.Success;
      }
      return ExitCode.InvalidInput;
    }
    const json = argv.includes("--json");
    const { reportError } = await import("./output.js");
    reportError(error, json, { stdout, stderr });
    return ExitCode.InvalidInput;
  }
}

/** Closes the runners the command built; a failure to close is reported by the runner's plugins, never masks the command's own result. */
async function closeAll(contexts: CommandContext[]): Promise<void> {
  await Promise.all(contexts.map((ctx) => ctx.close().catch(() => undefined)));
}
