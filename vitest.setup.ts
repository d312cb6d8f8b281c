/** Runs in each test worker before its file: the event-loop watch (vitest.event-loop-watch.ts) names the test. */
import { beforeEach, expect } from "vitest";
import { watchEventLoop } from "./vitest.event-loop-watch.js";

const file = expect.getState().testPath ?? "a test file";
const watch = watchEventLoop("test worker", `${file} (loading)`);
watch.current = `${file} (loading)`;
beforeEach((context) => {
  watch.current = `${file} > ${context.task.name}`;
});
