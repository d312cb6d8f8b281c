import type { CommandModule } from "../command.js";
import { notYetAvailable } from "../command.js";

export const serveCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("serve")
      .description("Serve skill jobs and oracle runs over HTTP")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options, command) => {
        setExit(notYetAvailable("serve", context(command).out));
      });
  },
};
