/**
 * @skillrig/assertion-kit: how an eval assertion kind is written (docs/plugin-api.md, "Assertion kinds").
 * `defineAssertionKind` makes the plugin; `readOutputFile` is the safe reader of a run's outputs/ that every kind
 * gets as `run.readOutput`; `checkAssertionObject` checks one assertion as evals.json is checked. The test helper
 * is `@skillrig/assertion-kit/testing`.
 */
export { defineAssertionKind, ASSERTION_KIND_NAME } from "./define-assertion-kind.js";
export type { AssertionKindDefinition, AssertionKindPlugin } from "./define-assertion-kind.js";
export { checkAssertionObject } from "./check-assertion.js";
export { readOutputFile, outputPathParts, OUTPUT_READ_CAP_BYTES } from "./output-file.js";
export type { OutputRead } from "./output-file.js";
export type {
  AssertionKind,
  AssertionObject,
  AssertionShape,
  AssertionRun,
  AssertionRunsIn,
  AssertionVerdict,
  AssertionCheckContext,
  OutputFileRead,
} from "@skillrig/core";
