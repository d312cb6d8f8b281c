/** Skill activation with the real claude CLI against the mock model (engine-kit's shared cases), and its parser's own. */
import { describeSkillActivation } from "@skillrig/engine-kit/testing";
import { claude } from "./settings.js";

describeSkillActivation(claude, { via: "Skill" });
