import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

// The shared-fixtures tier (`*.shared.test.ts`) reads real material kept beside the repository
// (../shared/fixtures). The repository stands alone: the default tier uses copies under each package's
// test/fixtures; this tier runs only when the folder is there, and says so when it is not.
const SHARED_FIXTURES = resolve(import.meta.dirname, "../shared/fixtures");
const withSharedFixtures = existsSync(SHARED_FIXTURES);
if (!withSharedFixtures) {
  console.log(`shared-fixtures tier skipped: ${SHARED_FIXTURES} not found (the *.shared.test.ts files are not run)`);
}

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
    // Two test files at once. vitest's default on a 2-core machine is one (cores - 1), but most of a file's time here
    // is spent waiting on the processes it starts (the CLI, python3, bubblewrap, engines, servers), so a second file
    // fills that time; no test may depend on a quiet machine anyway (each is checked with a CPU hog beside it).
    maxWorkers: 2,
    minWorkers: 1,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
