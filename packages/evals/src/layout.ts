/**
 * Where an iteration's files go (format.ts describes the layout): the next iteration's number, and each run's
 * folder, `eval-<id>/<configuration>/[<engine>/][run-<k>/]`, the engine level only when the iteration runs more
 * than one engine and the run level only with more than one run, so a one-engine, one-run iteration is exactly the
 * Agent Skills specification's layout.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Configuration } from "./format.js";

/** 1 + the highest `iteration-<n>` in the eval folder (1 when there is none, or no folder yet). */
export function nextIteration(evalDir: string): number {
  if (!existsSync(evalDir)) return 1;
  let highest = 0;
  for (const entry of readdirSync(evalDir, { withFileTypes: true })) {
    const m = /^iteration-(\d+)$/.exec(entry.name);
    if (m && entry.isDirectory()) highest = Math.max(highest, Number(m[1]));
  }
  return highest + 1;
}

export interface LayoutShape {
  /** More than one engine in the iteration: an `<engine>/` level. */
  engines: number;
  /** More than one run per configuration: a `run-<k>/` level. */
  runs: number;
}

/** A run's folder relative to the iteration folder (always with `/`). */
export function runPath(shape: LayoutShape, evalId: number | string, configuration: Configuration, engine: string, run: number): string {
  const parts = [`eval-${evalId}`, configuration];
  if (shape.engines > 1) parts.push(engine);
  if (shape.runs > 1) parts.push(`run-${run}`);
  return parts.join("/");
}

export function iterationDir(evalDir: string, iteration: number): string {
  return join(evalDir, `iteration-${iteration}`);
}
