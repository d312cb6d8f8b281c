import type { CommandModule } from "../command.js";
import { notYetAvailable } from "../command.js";

export const testCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("test")
      .description("Grade a deliverable (function, script or cli) against a task file's test cases")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options, command) => {
        setExit(notYetAvailable("test", context(command).out));
      });
  },
};
