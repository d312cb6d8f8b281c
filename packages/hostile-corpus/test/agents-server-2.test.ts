/** Scripted agents in the agent jail: the solve --server rows, 2 of every 2 (test/support/agent-rows.ts). */
import { describeAgents } from "./support/agent-rows.js";

describeAgents({ server: 1, shards: 2 });
