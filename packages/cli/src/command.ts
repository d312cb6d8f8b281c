import type { Command } from "commander";
import type { CommandContext } from "./context.js";
import { ExitCode } from "./exit-codes.js";

/**
 * A subcommand module. `register` adds the command to the program; its action returns the exit code.
 * Each subcommand lives in commands/<name>.ts so the issues that fill them do not touch each other.
 */
export interface CommandModule {
  register(program: Command, context: (command: Command) => CommandContext, setExit: (code: number) => void): void;
}

/** For a subcommand whose issue has not landed yet: says so and exits 2. */
export function notYetAvailable(name: string, out: CommandContext["out"]): number {
  out.warn(`"skillrig ${name}" is not available in this version yet`);
  return ExitCode.InvalidInput;
}
