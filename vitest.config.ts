import { defineConfig } from "vitest/config";

// One vitest run covers every package: tests live in each package's test/ folder.
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "plugins/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
