#!/usr/bin/env node
/**
 * What the sandbox costs per case: `python3 tool.py` run through sandbox.run() at each level available
 * here, against a plain execa spawn of the same interpreter in the same run (interleaved, so drift hits
 * all alike). Reports the median and p90 wall time per case and the ratio to the plain spawn.
 * The project's goal is a sandboxed case costing at most 1.5x a bare spawn.
 *
 *   pnpm --filter @skillrig/sandbox bench            # 40 rounds
 *   ROUNDS=100 pnpm --filter @skillrig/sandbox bench
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { availableLevels, createSandbox, probeHost } from "../dist/index.js";

const rounds = Number(process.env.ROUNDS ?? 40);
const warmup = 3;
const root = mkdtempSync(join(tmpdir(), "skillrig-bench-"));
const deliverable = join(root, "deliverable");
const tool = join(deliverable, "tool.py");
await import("node:fs").then((fs) => fs.mkdirSync(deliverable));
writeFileSync(tool, "import sys, json\nprint(json.dumps({'sum': sum(range(1000))}))\n");

const host = probeHost();
const python = host.python?.executable ?? "python3";
const limits = { wallMs: 10_000 };

/** Each contender runs one case in a fresh case folder and resolves when it is done. */
const contenders = [
  {
    name: `bare execa (${python})`,
    bare: true,
    run: (cwd) => execa(python, [tool], { cwd, reject: false }),
  },
  {
    name: "bare execa (python3 via PATH)",
    run: (cwd) => execa("python3", [tool], { cwd, reject: false }),
  },
];
for (const { level, available } of availableLevels(host)) {
  if (!available) continue;
  const sandbox = createSandbox({ level });
  // As root the weaker levels run the code as a per-run uid, and refuse a python3 that uid cannot run (a pyenv
  // under /root): say so and leave the level out (PATH=/usr/bin:$PATH measures it with Debian's python3).
  const refusal = await sandbox
    .run({ command: ["python3", tool], cwd: mkdtempSync(join(root, "trial-")), readOnlyPaths: [deliverable], limits })
    .then(
      () => undefined,
      (error) => error,
    );
  if (refusal) {
    console.log(`level ${level} left out: ${refusal.message}`);
    continue;
  }
  contenders.push({
    name: `sandbox level ${level}`,
    run: async (cwd) => {
      const result = await sandbox.run({ command: ["python3", tool], cwd, readOnlyPaths: [deliverable], limits });
      if (result.exitCode !== 0) throw new Error(`level ${level} failed: ${result.stderr}`);
    },
  });
}

const samples = new Map(contenders.map((c) => [c.name, []]));
for (let round = 0; round < rounds + warmup; round++) {
  for (const contender of contenders) {
    const cwd = mkdtempSync(join(root, "case-"));
    const start = performance.now();
    await contender.run(cwd);
    const elapsed = performance.now() - start;
    if (round >= warmup) samples.get(contender.name).push(elapsed);
  }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const baseline = quantile(samples.get(contenders[0].name), 0.5);
console.log(`skillrig sandbox cost per case: ${rounds} rounds (+${warmup} warm-up), node ${process.version}, root=${host.isRoot}`);
console.log("contender".padEnd(56), "median ms".padStart(10), "p90 ms".padStart(10), "x bare".padStart(8));
for (const contender of contenders) {
  const values = samples.get(contender.name);
  const median = quantile(values, 0.5);
  console.log(
    contender.name.padEnd(56),
    median.toFixed(1).padStart(10),
    quantile(values, 0.9).toFixed(1).padStart(10),
    (median / baseline).toFixed(2).padStart(8),
  );
}
rmSync(root, { recursive: true, force: true });
