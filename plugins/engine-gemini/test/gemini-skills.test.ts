/** Skill activation with the real gemini CLI against the mock model (engine-kit's shared cases), and its parser's own. */
import { describeSkillActivation } from "@skillrig/engine-kit/testing";
import { gemini } from "./settings.js";

describeSkillActivation(gemini, { via: "activate_skill" });
