export { startMockModel } from "./server.js";
export type { MockModel, MockModelOptions, RecordedRequest } from "./server.js";
export { loadScenario, validateScenario, SCENARIO_SCHEMA } from "./scenario.js";
export type { Scenario, Turn, TextTurn, JsonTurn, WriteFileTurn, ShellTurn, EchoToolOutputTurn, ErrorTurn, HangTurn } from "./scenario.js";
