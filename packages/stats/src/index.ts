/**
 * @skillrig/stats: the statistics of a comparison, in one place that the CLI, the viewer (in the browser) and the
 * evals import, so every page and file shows the same numbers. Pure functions, no Node imports.
 */
export { DEFAULT_RESAMPLES, DEFAULT_SEED, pairedBootstrapInterval, seededRandom, type BootstrapOptions } from "./bootstrap.js";
export { mcnemarExactP, signTestP } from "./exact-test.js";
export { isSignificantDrop, isSignificantRise, pairedDelta, pairedStats, round4, type Pair, type PairedDelta } from "./paired-delta.js";
export { wilsonInterval, Z95 } from "./wilson.js";
