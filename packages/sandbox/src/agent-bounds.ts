/**
 * `sandbox.agent` in the config: its schema lives here, with the section; what the bounds are, their defaults and
 * keys are core's (`@skillrig/core` agent-bounds.ts), shared with engine-kit, which enforces the output bounds.
 */
export { AGENT_BOUND_KEYS, agentBounds, DEFAULT_AGENT_BOUNDS, type AgentBounds, type AgentBoundsConfig } from "@skillrig/core";

/** The JSON Schema of `sandbox.agent` (in the config section). */
export const AGENT_BOUNDS_SCHEMA = {
  description:
    "Bounds on an agent (an engine CLI and its tool commands); past an output or workspace bound the run ends output_limit (docs/sandbox.md, 'Bounds on untrusted producers').",
  type: "object",
  additionalProperties: false,
  properties: {
    line_bytes: { description: "The longest line the engine may print. Default 8 MiB.", type: "integer", minimum: 1024 },
    output_bytes: {
      description: "All the engine may print (stdout and stderr together), and what is kept of it in the run folder. Default 64 MiB.",
      type: "integer",
      minimum: 1024,
    },
    events: { description: "Events one engine run may emit. Default 100000.", type: "integer", minimum: 1 },
    processes: {
      description: "Processes and threads the agent may have at once (as root: its own uid's RLIMIT_NPROC). Default 512.",
      type: "integer",
      minimum: 16,
    },
    tmp_bytes: { description: "Size of the jail's private /tmp (memory). Default 256 MiB.", type: "integer", minimum: 1024 * 1024 },
    file_bytes: {
      description: "The largest file the agent may write (RLIMIT_FSIZE). Default 512 MiB.",
      type: "integer",
      minimum: 1024 * 1024,
    },
    workspace_bytes: {
      description: "All the agent may keep in the workspace and its engine folder together. Default 2 GiB.",
      type: "integer",
      minimum: 1024 * 1024,
    },
  },
} as const;
