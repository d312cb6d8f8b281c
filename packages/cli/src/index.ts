export { main } from "./main.js";
export type { MainOptions } from "./main.js";
export { ExitCode } from "./exit-codes.js";
export type { CommandModule } from "./command.js";
export type { CommandContext } from "./context.js";
