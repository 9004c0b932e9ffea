import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    // Two cores on CI: keep workers at two and fail loudly on hung tests instead of waiting.
    maxWorkers: 2,
    // Clew keeps no module-level state, so test files can share one module graph per worker;
    // re-importing the sources for every file cost most of the run time.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
