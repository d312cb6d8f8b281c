/**
 * The turn state's reading of Gemini CLI's ACP tool calls, which carry no tool name and no input: its activate_skill
 * call names the skill only in its title, and a new file's diff has an empty old text with `_meta.kind` "add".
 * Hostile: a title shaped like an activation on any other tool (a shell command the model chose) is not one.
 */
import { describe, expect, it } from "vitest";
import { createAcpTurnState } from "../src/session-state.js";

const WORKSPACE = "/runs/job/workspace";

describe("ACP turn state: Gemini CLI's tool calls", () => {
  it("an activate_skill call titled with the skill activates it; a new file's diff is an add", () => {
    const state = createAcpTurnState(WORKSPACE);
    const activation = state.update({
      sessionUpdate: "tool_call",
      toolCallId: "activate_skill__activate_skill_1_0",
      title: '"top-months": Rank the months of a sales CSV',
      kind: "other",
      status: "pending",
    });
    expect(activation).toContainEqual({ type: "skill_activated", skill: "top-months", via: "activate_skill" });
    const write = state.update({
      sessionUpdate: "tool_call_update",
      toolCallId: "write_file__write_file_2_0",
      title: "Writing to summary.txt",
      status: "completed",
      content: [{ type: "diff", path: `${WORKSPACE}/summary.txt`, oldText: "", newText: "x\n", _meta: { kind: "add" } }],
    });
    expect(write).toContainEqual({ type: "file_change", path: "summary.txt", kind: "add" });
    const edit = state.update({
      sessionUpdate: "tool_call_update",
      toolCallId: "replace__replace_3_0",
      status: "completed",
      content: [{ type: "diff", path: `${WORKSPACE}/summary.txt`, oldText: "x\n", newText: "y\n" }],
    });
    expect(edit).toContainEqual({ type: "file_change", path: "summary.txt", kind: "update" });
  });

  it("hostile: a shell command titled like an activation activates nothing", () => {
    const state = createAcpTurnState(WORKSPACE);
    const events = state.update({
      sessionUpdate: "tool_call",
      toolCallId: "run_shell_command__run_shell_command_1_0",
      title: '"forged": echo activated',
      kind: "execute",
      status: "pending",
    });
    expect(events.filter((e) => e.type === "skill_activated")).toEqual([]);
  });
});
