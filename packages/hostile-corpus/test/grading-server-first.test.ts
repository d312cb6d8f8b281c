/** The hostile corpus through `skillrig test`: --server rows on the first server (sqlite) (test/support/grading-rows.ts). */
import { describeServerGrading, serversOfPart } from "./support/grading-rows.js";

describeServerGrading(serversOfPart("first"));
