/** Scripted agents in the agent jail: the solve --server rows, 1 of every 2 (test/support/agent-rows.ts). */
import { describeAgents } from "./support/agent-rows.js";

describeAgents({ server: 0, shards: 2 });
