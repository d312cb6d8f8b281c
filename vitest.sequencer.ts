/**
 * The order files start in. vitest starts the files that took longest in its last run first, from its cache
 * (node_modules/.vite/vitest); a fresh clone has none, and vitest then starts the largest files first, which puts
 * a long file of few lines (a shard of rows kept in test/support) last, where it alone decides when the run ends.
 * So the files measured longest in a full CI run beside a CPU hog (docs/ci.md) start first, longest first; the
 * rest follow in vitest's own order (its cache when there is one).
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Longest first: seconds in the last measured full run (docs/ci.md), split files at their share. */
const LONGEST_FIRST = [
  "packages/release-check/test/installed-product.test.ts", // 704
  "packages/oracle/test/reward-hacking-function.test.ts", // 313
  "packages/hostile-corpus/test/eval.test.ts", // 274
  "examples/skill-evals/test/skill-evals.test.ts", // 264
  "packages/hostile-corpus/test/engine-output-1.test.ts", // 699 for the three before the split and the smaller bounds
  "packages/hostile-corpus/test/engine-output-2.test.ts",
  "packages/hostile-corpus/test/engine-output-3.test.ts",
  "packages/server/test/exact-values.test.ts", // 220
  "packages/server/test/remote-solve.test.ts", // 208
  "packages/server/test/remote-oracle.test.ts", // 206
  "packages/view/test/view.browser.test.ts", // 203
  "packages/cli/test/init-plugin.test.ts", // 193
  "packages/hostile-corpus/test/agents-server-1.test.ts", // 418 for the three before the split
  "packages/hostile-corpus/test/agents-server-2.test.ts",
  "packages/server/test/crash-quarantine.test.ts", // 170
  "examples/skill-evals/test/inline-distractors.test.ts", // 168
  "packages/release-check/test/docs-commands.test.ts", // 167
  "packages/cli/test/plain-skill.test.ts", // 166
  "packages/cli/test/eval.test.ts", // 153
  "packages/skills/test/python-env.test.ts", // 146
  "packages/hostile-corpus/test/agents-local.test.ts",
  "packages/server/test/cluster.test.ts", // 141
  "packages/evals/test/inline-distractors.e2e.test.ts", // 136
  "packages/server/test/worker-limits.test.ts", // 135
  "packages/server/test/crash-restart.test.ts", // 126
];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((known) => file.moduleId.endsWith(`/${known}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Array sort is stable: the files not listed keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
