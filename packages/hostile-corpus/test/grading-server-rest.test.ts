/** The hostile corpus through `skillrig test`: --server rows on the other servers (redis; sqlite as uid 65534 when run as root) (test/support/grading-rows.ts). */
import { describeServerGrading, serversOfPart } from "./support/grading-rows.js";

describeServerGrading(serversOfPart("rest"));
