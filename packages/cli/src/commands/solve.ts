import type { CommandModule } from "../command.js";
import { notYetAvailable } from "../command.js";

export const solveCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("solve")
      .description("Have an engine write the deliverable for a task, then grade it on the task's hidden tests")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options, command) => {
        setExit(notYetAvailable("solve", context(command).out));
      });
  },
};
