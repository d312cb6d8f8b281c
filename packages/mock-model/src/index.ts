export { startMockModel } from "./server.js";
export type { MockModel, MockModelOptions, RecordedRequest } from "./server.js";
export { loadScenario, validateScenario, SCENARIO_SCHEMA, turnText } from "./scenario.js";
export type {
  Scenario,
  Turn,
  TextTurn,
  JsonTurn,
  WriteFileTurn,
  ShellTurn,
  ActivateSkillTurn,
  EchoToolOutputTurn,
  ErrorTurn,
  HangTurn,
} from "./scenario.js";
export { listedSkillFile } from "./responses-api.js";
export { defineDialect } from "./dialect.js";
export type { MockDialect, DialectRequest, DialectReply, SseEvent, AnswerTurn, TurnContext } from "./dialect.js";
export { anthropicDialect, anthropicErrorBody } from "./anthropic-api.js";
export { scenario, turn } from "./scenario-builders.js";
