/** The hostile corpus through `skillrig test`: the local rows, second half (test/support/grading-rows.ts). */
import { describeLocalGrading } from "./support/grading-rows.js";

describeLocalGrading(1, 2);
