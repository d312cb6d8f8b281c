/**
 * The config values a case's limits fall back to: `oracle.timeout_ms` (a section of @skillrig/oracle) and
 * `sandbox.limits` (of @skillrig/sandbox). Read through this narrow view instead of those packages' section types:
 * @skillrig/oracle devDepends on the process deliverable plugins for its tests, so importing its types here would be a build cycle.
 */
import type { SandboxLimitsConfig, SkillrigConfig } from "@skillrig/core";

interface CaseLimitSections {
  oracle?: { timeout_ms?: number };
  sandbox?: { limits?: SandboxLimitsConfig };
}

export function caseLimitDefaults(config: SkillrigConfig): { timeout_ms?: number; limits?: SandboxLimitsConfig } {
  const sections = config as SkillrigConfig & CaseLimitSections;
  return { timeout_ms: sections.oracle?.timeout_ms, limits: sections.sandbox?.limits };
}
