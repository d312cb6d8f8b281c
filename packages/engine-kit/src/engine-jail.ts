/**
 * Every engine run goes through the agent jail: engine-kit asks core's `sandbox` hook for the agent profile
 * (`{ purpose: "engine", profile: "agent" }`) and wraps the CLI's command line with the answer's `confineAgent`.
 * So every adapter built on engine-kit runs jailed without a line of its own, and engine-kit does not bring a
 * sandbox of its own: the jail is whichever sandbox plugin the project uses (@skillrig/sandbox by default, through
 * the CLI's built-ins). No sandbox able to confine an agent is an error, unless the user chose `jail: "none"`.
 */
import { join } from "node:path";
import { type AgentJailRequest, type ConfinedCommand, type Sandbox, SkillrigError, unconfinedAgentCommand } from "@skillrig/core";
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
  const confined =
    input.level === "none"
      ? unconfinedAgentCommand(
          input.request,
          'agent jail: the engine runs unconfined (level "none" was chosen): it can read and write whatever the runner can, and reach any network',
        )
      : await confineWithSandbox(input);
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

/** The agent profile of the sandbox the runner's hook answers with; none that can confine an agent is an error. */
async function confineWithSandbox(input: EngineJailInput): Promise<ConfinedCommand> {
  // A sandbox that refuses the agent profile throws its own error (naming itself): it stands, never a weaker jail.
  const sandbox: Sandbox | undefined = input.sandbox?.();
  if (sandbox?.confineAgent) return sandbox.confineAgent(input.request);
  const which = sandbox ? `the sandbox plugin "${sandbox.name}" has no agent profile (confineAgent)` : "no sandbox plugin answered";
  throw new SkillrigError("sandbox_unavailable", `agent jail: ${which}, so the engine has nothing to run in`, {
    field: "jail",
    hint: "add @skillrig/sandbox (one of the CLI's built-ins) or a sandbox plugin with an agent profile to the config's plugins, or set the engine option jail: \"none\" to run the engine unconfined on purpose",
  });
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
