/**
 * The ACP client side of one turn, over the agent's stdin/stdout with the protocol's SDK: `initialize`,
 * `session/new` in the run workspace (and `session/set_mode` when the options name a mode), `session/prompt` with the
 * prompt, the `session/update` stream mapped to job events while it runs, permission requests answered by the
 * policy, and `session/cancel` when the job is canceled. The agent gets no file system or terminal from skillrig
 * (the client capabilities are off): it works with its own tools, inside the agent jail.
 */
import { PROTOCOL_VERSION, client, ndJsonStream, type SessionNotification } from "@agentclientprotocol/sdk";
import type { EngineDriveIO, EngineRunContext, StreamParser } from "@skillrig/engine-kit";
import { Writable } from "node:stream";
import type { AcpOptions } from "./options.js";
import { decidePermission } from "./policy.js";
import type { AcpTurnState } from "./session-state.js";

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === "object" && "message" in error) {
    const data = (error as { data?: unknown }).data;
    return `${String((error as { message: unknown }).message)}${data !== undefined ? ` (${JSON.stringify(data).slice(0, 300)})` : ""}`;
  }
  return String(error);
}

export async function driveAcp(io: EngineDriveIO, parser: StreamParser, ctx: EngineRunContext<AcpOptions>): Promise<void> {
  const state = parser as AcpTurnState;
  const policy = ctx.options.permissions ?? "deny_all";
  let sessionId: string | undefined;
  let canceled = false;

  const app = client({ name: "skillrig" })
    .onNotification("session/update", ({ params }: { params: SessionNotification }) => {
      if (sessionId !== undefined && params.sessionId !== sessionId) return;
      for (const event of state.update(params.update)) io.emit(event);
    })
    .onRequest("session/request_permission", ({ params }) => {
      if (canceled) return { outcome: { outcome: "cancelled" } };
      for (const event of state.announce(params.toolCall)) io.emit(event);
      const decision = decidePermission(policy, params);
      if (!decision.allowed) {
        const message = `refused the agent's permission request for "${params.toolCall.title ?? params.toolCall.toolCallId}" (tool kind ${decision.kind}): the "permissions" option does not allow it`;
        state.warn(message);
        io.emit({ type: "status", status: "warning", message });
      }
      return decision.response;
    });

  const stream = ndJsonStream(Writable.toWeb(io.stdin as Writable) as WritableStream<Uint8Array>, io.stdout);
  await app.connectWith(stream, async (agent) => {
    io.onCancel(() => {
      canceled = true;
      if (sessionId !== undefined) void agent.notify("session/cancel", { sessionId }).catch(() => {});
    });
    try {
      const init = await agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "skillrig", version: "1" },
      });
      if (init.protocolVersion !== PROTOCOL_VERSION)
        io.emit({
          type: "status",
          status: "warning",
          message: `the agent speaks ACP version ${init.protocolVersion}, skillrig ${PROTOCOL_VERSION}`,
        });
      const session = await agent.request("session/new", { cwd: ctx.dirs.workspace, mcpServers: [] });
      sessionId = session.sessionId;
      if (ctx.options.mode) await agent.request("session/set_mode", { sessionId, modeId: ctx.options.mode });
      if (canceled) return state.stopped("cancelled");
      const result = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: ctx.prompt }] });
      state.stopped(result.stopReason);
    } catch (error) {
      state.error(`ACP: ${messageOf(error)}`);
    }
  });
}
