import type { Command } from "commander";
import type { CommandContext } from "./context.js";

/**
 * A subcommand module. `register` adds the command to the program; its action returns the exit code.
 * Each subcommand lives in commands/<name>.ts so the issues that fill them do not touch each other.
 */
export interface CommandModule {
  register(program: Command, context: (command: Command) => CommandContext, setExit: (code: number) => void): void;
}
