/**
 * The view's UI kit: what every page builds on (data loading, statuses, formatting, ids and dates, tables, case
 * tables, timelines, code). Pages import it; it imports no page (test/import-walls.test.ts holds that).
 */
export * from "./components.js";
export * from "./format.js";
export * from "./ids.js";
export * from "./pass-at-k.js";
export * from "./stats-cells.js";
export * from "./status.js";
export * from "./table-view.js";
export * from "./use-fetch.js";
