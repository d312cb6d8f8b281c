/** Scripted agents in the agent jail: the solve and skill-job rows (test/support/agent-rows.ts). */
import { describeAgents } from "./support/agent-rows.js";

describeAgents({ local: true });
