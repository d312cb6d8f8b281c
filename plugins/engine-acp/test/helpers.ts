/** What engine-acp's tests share: the test agent bundled as an installed CLI, a runner over the fixture skills. */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Runner, type EngineEvent, type JobResult, type SkillrigPlugin } from "@skillrig/core";
import type { AcpOptions } from "@skillrig/engine-acp";
import { resolvePackageBin } from "@skillrig/engine-kit";
import { tempDir } from "@skillrig/engine-kit/testing";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import { buildSync } from "esbuild";
import sandboxPlugin from "@skillrig/sandbox";

export const FIXTURES = resolve(import.meta.dirname, "fixtures");
export const EXAMPLE = resolve(import.meta.dirname, "../../../examples/hello-skill");
export const GEMINI = resolvePackageBin("@google/gemini-cli", "gemini", import.meta.url)!;

/** Gemini CLI's ACP engine as a config names it: its settings (API-key auth, no telemetry) written into its HOME. */
export function geminiAcpOptions(name: string, over: Partial<AcpOptions> = {}): AcpOptions {
  return {
    name,
    command: [GEMINI, "--acp"],
    display_name: "Gemini CLI (ACP)",
    context_file: "GEMINI.md",
    permissions: "allow_all",
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
    home_files: {
      ".gemini/settings.json": {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      },
    },
    timeout_ms: 120_000,
    ...over,
  };
}

let bundled: string | undefined;

/**
 * The test agent as one executable file inside a node_modules folder of its own (as an npm-installed CLI is): the
 * agent jail binds the outermost node_modules of the executable and node, so it runs jailed like any engine.
 */
export function testAgent(): string {
  if (bundled) return bundled;
  const file = join(tempDir("skillrig-acp-agent-"), "node_modules", "acp-test-agent", "agent.mjs");
  mkdirSync(resolve(file, ".."), { recursive: true });
  buildSync({
    entryPoints: [join(FIXTURES, "acp-test-agent.mjs")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: file,
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "error",
  });
  chmodSync(file, 0o755);
  bundled = file;
  return file;
}

export function fixtureRunner(...plugins: SkillrigPlugin[]): Runner {
  const dir = tempDir("skillrig-acp-");
  const runner = new Runner({ cwd: dir, configDir: dir, config: { skills: { roots: [join(FIXTURES, "skills")] } } });
  runner.use(skillProtocolPlugin());
  for (const plugin of plugins) runner.use(plugin);
  // The agent jail comes through the sandbox hook, as in a project (the default sandbox, tapped last).
  runner.use(sandboxPlugin());
  return runner;
}

export async function runNote(
  runner: Runner,
  engine: string,
  prompt: string,
  options: { signal?: AbortSignal; onEvent?: (e: EngineEvent) => void; skill_install?: "referenced" | "discoverable" | "none" } = {},
): Promise<{ result: JobResult; events: EngineEvent[] }> {
  const events: EngineEvent[] = [];
  const result = await runJob(
    runner,
    { skill_id: "note-taker", engine, prompt, ...(options.skill_install ? { options: { skill_install: options.skill_install } } : {}) },
    {
      runsDir: tempDir("skillrig-acp-runs-"),
      onEvent: (e) => {
        events.push(e);
        options.onEvent?.(e);
      },
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return { result, events };
}

export function readWorkspaceFile(result: JobResult, name: string): string | undefined {
  try {
    return readFileSync(join(result.run_dir, "workspace", name), "utf8");
  } catch {
    return undefined;
  }
}

export function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
