import type { CommandModule } from "../command.js";
import { notYetAvailable } from "../command.js";

export const skillsCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("skills")
      .description("List, show and validate skill packages")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options, command) => {
        setExit(notYetAvailable("skills", context(command).out));
      });
  },
};
