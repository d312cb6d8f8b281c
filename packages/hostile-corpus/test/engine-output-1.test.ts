/** Hostile ACP agents against the agent jail's output bounds: rows 1 of every 3 (test/support/engine-output-rows.ts). */
import { describeEngineOutput } from "./support/engine-output-rows.js";

describeEngineOutput(0, 3);
