/**
 * The assertion kinds a runner knows: whatever plugins tapped `runner.hooks.assertion` (the built-in kinds are
 * such a plugin, builtin-kinds.ts). Loading evals.json and grading both ask here, so a kind is known to both or to
 * neither.
 */
import type { AssertionKind, Runner } from "@skillrig/core";

export interface RegisteredKind {
  name: string;
  /** The plugin that declared it (named by errors from its grade). */
  plugin: string;
  kind: AssertionKind;
}

/** The kind `name` as its plugin declared it, or undefined when no plugin handles it. */
export function registeredKind(runner: Runner, name: string): RegisteredKind | undefined {
  const claim = runner.claimant("assertion", name);
  if (!claim) return undefined;
  const kind = runner.hooks.assertion.get(name)?.call();
  return kind ? { name, plugin: claim.plugin, kind } : undefined;
}

/** Every known kind's name, in the order plugins declared them. */
export function registeredKindNames(runner: Runner): string[] {
  return runner.claims("assertion").map((c) => c.name);
}
