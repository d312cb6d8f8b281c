/** Skill activation with the real codex CLI against the mock model (engine-kit's shared cases), and its parser's own. */
import { describeSkillActivation } from "@skillrig/engine-kit/testing";
import { codex } from "./settings.js";

describeSkillActivation(codex, { via: "read SKILL.md" });
