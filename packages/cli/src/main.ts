/**
 * The skillrig command line. Exit codes: 0 success, 1 the work ran and something failed, 2 invalid input,
 * config or usage (see exit-codes.ts).
 */
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { createContext, type CommandContext, type GlobalOptions } from "./context.js";
import { ExitCode } from "./exit-codes.js";
import { reportError } from "./output.js";
import type { CommandModule } from "./command.js";
import { testCommand } from "./commands/test.js";
import { runCommand } from "./commands/run.js";
import { solveCommand } from "./commands/solve.js";
import { serveCommand } from "./commands/serve.js";
import { skillsCommand } from "./commands/skills.js";
import { pluginsCommand } from "./commands/plugins.js";
import { initCommand } from "./commands/init.js";

const COMMANDS: CommandModule[] = [testCommand, runCommand, solveCommand, serveCommand, skillsCommand, pluginsCommand, initCommand];

const version: string = createRequire(import.meta.url)("../package.json").version;

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

  const contexts = new WeakMap<Command, CommandContext>();
  const context = (command: Command): CommandContext => {
    let ctx = contexts.get(command);
    if (!ctx) {
      ctx = createContext(command.optsWithGlobals() as GlobalOptions, options.cwd, { stdout, stderr });
      contexts.set(command, ctx);
    }
    return ctx;
  };
  const setExit = (code: number) => {
    exitCode = code;
  };
  for (const module of COMMANDS) module.register(program, context, setExit);
  for (const sub of program.commands)
    sub.exitOverride().configureOutput({ writeOut: (s) => stdout.write(s), writeErr: (s) => stderr.write(s) });

  try {
    await program.parseAsync(argv, { from: "user" });
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.InvalidInput;
    }
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
        return ExitCode.Success;
      }
      return ExitCode.InvalidInput;
    }
    const json = argv.includes("--json");
    reportError(error, json, { stdout, stderr });
    return ExitCode.InvalidInput;
  }
}
