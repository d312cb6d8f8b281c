/**
 * `@skillrig/engine-kit/testing`: the shared test suite of engine plugins, for vitest. An engine plugin's tests call
 * `describeEngine(settings, cases)` once and keep only what is the engine's own. Needs vitest (an optional peer
 * dependency of engine-kit) and @skillrig/skills; the main entry of engine-kit imports neither.
 */
export { describeEngine, type EngineSuiteCases } from "./describe-engine.js";
export {
  engineRunner,
  greetingJob,
  runAgainstMock,
  runGreeting,
  tempDir,
  testKeyEnv,
  withTestKey,
  writeGreetingTurn,
  type EngineTestSettings,
  type MockRun,
  type TestEngineOptions,
} from "./engine-settings.js";
export { jailedConfinement, jobConfinement, jobFailure } from "./job-result.js";
export { describeSharedTranscripts } from "./shared-transcripts.js";
export { feedUntilGiveUp, transcriptFiles, transcriptReplayer, transcriptsDir, type Replayed } from "./transcripts.js";
export { describeSkillActivation, GREETING_SKILL_BODY, GREETING_SKILL_DESCRIPTION } from "./skill-activation-suite.js";
export { describeUsage, METERED_USAGE, modelCalls } from "./usage-suite.js";
