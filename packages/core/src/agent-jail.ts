/**
 * An agent's command line run as it is, with no jail: what a run with the engine option `jail: "none"` gets, and
 * what a sandbox plugin answers when no jail is available on the machine. Every field of the confinement says so
 * (isolation, network, capabilities), so the job's result never claims a jail that was not there.
 */
import { SkillrigError } from "./errors.js";
import type { AgentJailRequest, ConfinedCommand } from "./sandbox.js";

export function unconfinedAgentCommand(request: AgentJailRequest, warning: string): ConfinedCommand {
  const [program, ...args] = request.command;
  if (!program) throw new SkillrigError("sandbox_unavailable", "agent jail: no command to run");
  return {
    file: program,
    args,
    env: request.env,
    isolation: "none",
    network: "host",
    uid: process.getuid?.() ?? 0,
    capabilities: "runner",
    seccomp: false,
    userNamespaces: true,
    warnings: [warning],
    close: async () => {},
  };
}
