/** The hostile corpus through `skillrig test`: the local rows, first half (test/support/grading-rows.ts). */
import { describeLocalGrading } from "./support/grading-rows.js";

describeLocalGrading(0, 2);
