import { defineConfig } from "vitest/config";

// Real processes (the sandbox, the agent jail): generous limits, so a busy machine does not fail a test.
export default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } });
