import type { CommandModule } from "../command.js";
import { notYetAvailable } from "../command.js";

export const runCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("run")
      .description("Run a skill as a job with an engine: inputs, uploaded files, parameters, prompt, output, artifacts")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options, command) => {
        setExit(notYetAvailable("run", context(command).out));
      });
  },
};
