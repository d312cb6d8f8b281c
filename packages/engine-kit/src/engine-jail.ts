/**
 * Every engine run goes through the agent jail: engine-kit asks core's `sandbox` hook for the agent profile
 * (`{ purpose: "engine", profile: "agent" }`) and wraps the CLI's command line with the answer's `confineAgent`;
 * when no sandbox plugin answers with one, @skillrig/sandbox's own agent profile is used. So every adapter built
 * on engine-kit runs jailed without a line of its own.
 */
import { join } from "node:path";
import { type AgentJailRequest, type ConfinedCommand, type Sandbox, SkillrigError } from "@skillrig/core";
import { confineAgent } from "@skillrig/sandbox";
import { writeRunnerFile } from "./agent-files.js";

/** Asks the runner's `sandbox` hook for the agent profile; may be missing or throw (a strict sandbox refusing). */
export type AgentSandboxSource = () => Sandbox | undefined;

export interface EngineJailInput {
  request: AgentJailRequest;
  /** "none": the user opted out (engine option `jail: "none"`). */
  level: "auto" | "none";
  /** Refuse an unconfined run (the jobs server, unless its config allows unjailed engines). */
  required: boolean;
  sandbox?: AgentSandboxSource;
}

export async function confineEngine(input: EngineJailInput): Promise<ConfinedCommand> {
  let confined: ConfinedCommand;
  if (input.level === "none") {
    confined = await confineAgent(input.request, { level: "none" });
  } else {
    let sandbox: Sandbox | undefined;
    let refusal: string | undefined;
    try {
      sandbox = input.sandbox?.();
    } catch (error) {
      refusal = (error as Error).message;
    }
    confined = sandbox?.confineAgent ? await sandbox.confineAgent(input.request) : await confineAgent(input.request);
    if (refusal)
      confined.warnings.push(`agent jail: the configured sandbox refused the agent profile (${refusal}); used @skillrig/sandbox's`);
  }
  if (input.required && confined.isolation === "none") {
    await confined.close();
    throw new SkillrigError(
      "sandbox_unavailable",
      `the engine would run unjailed, which this host does not allow: ${confined.warnings.join("; ") || "no agent jail"}`,
      {
        field: input.level === "none" ? "jail" : "server.allow_unjailed_engines",
        hint:
          input.level === "none"
            ? 'remove the engine option jail: "none"'
            : "install bubblewrap (`bash scripts/setup-system.sh`) so engines run jailed, or set server.allow_unjailed_engines: true",
      },
    );
  }
  return confined;
}

/**
 * Codex and others run tool commands through a login shell (`bash -lc`), and /etc/profile resets PATH, so a
 * skill's Python environment (first on the job's PATH) vanished from the agent's commands. A login shell reads
 * ~/.bash_profile (or ~/.profile) last; the engine's own HOME gets one that puts the job's PATH back.
 */
export function writeLoginProfile(home: string, env: Record<string, string>): void {
  const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  const lines = ["# written by skillrig: a login shell keeps the job's PATH (a skill's Python environment)"];
  for (const name of ["PATH", "VIRTUAL_ENV"]) if (env[name] !== undefined) lines.push(`export ${name}=${quote(env[name]!)}`);
  const text = `${lines.join("\n")}\n`;
  writeRunnerFile(home, join(home, ".bash_profile"), text);
  writeRunnerFile(home, join(home, ".profile"), text);
}
