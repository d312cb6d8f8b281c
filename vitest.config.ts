import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { watchEventLoop } from "./vitest.event-loop-watch.js";
import { LongestFirstSequencer } from "./vitest.sequencer.js";

// The shared-fixtures tier (`*.shared.test.ts`) reads real material kept beside the repository
// (../shared/fixtures). The repository stands alone: the default tier uses copies under each package's
// test/fixtures; this tier runs only when the folder is there, and says so when it is not.
const SHARED_FIXTURES = resolve(import.meta.dirname, "../shared/fixtures");
const withSharedFixtures = existsSync(SHARED_FIXTURES);
if (!withSharedFixtures) {
  console.log(`shared-fixtures tier skipped: ${SHARED_FIXTURES} not found (the *.shared.test.ts files are not run)`);
}

watchEventLoop("vitest main process", "the run");

// One vitest run covers every package: tests live in each package's test/ folder.
export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "plugins/*/test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "benchmarks/test/**/*.test.ts",
    ],
    exclude: withSharedFixtures ? configDefaults.exclude : [...configDefaults.exclude, "**/*.shared.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Four test files at once. vitest's default on a 2-core machine is one (cores - 1), but most of a file's time is
    // spent waiting on the processes it starts (the CLI, python3, bubblewrap, engines, servers, npm) and on the
    // time limits hostile fixtures run into (a hostile-corpus shard: 292 s of wall time for 50 s of CPU on a loaded
    // machine), so other files fill that time. The two bounds tests that failed at four beside a CPU hog (the agent
    // jail's fork bomb beside a second jail, the engine workspace filler) now hold at any load: the bomb holds its
    // processes until its neighbours ran, the filler must be stopped short of what it wants. docs/ci.md has the
    // measurements. SKILLRIG_TEST_WORKERS overrides it (1 on a machine where the tests must not overlap).
    maxWorkers: Number(process.env.SKILLRIG_TEST_WORKERS) || 4,
    minWorkers: 1,
    reporters: ["default"],
    setupFiles: ["./vitest.setup.ts"],
    sequence: { sequencer: LongestFirstSequencer },
  },
});
