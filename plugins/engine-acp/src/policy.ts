/**
 * The permission policy: a request is answered from the options alone. Allowed: the agent's "allow once" option (its
 * "allow always" only when it offers no other allow). Refused: its "reject once" option, or `cancelled` when it offers
 * no reject option; either way the refusal is reported.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { AcpPermissionPolicy } from "./options.js";

export interface PermissionDecision {
  allowed: boolean;
  response: RequestPermissionResponse;
  /** The tool kind the request named ("other" when it named none). */
  kind: string;
}

export function allowedByPolicy(policy: AcpPermissionPolicy, kind: string): boolean {
  if (policy === "allow_all") return true;
  if (policy === "deny_all") return false;
  return (policy.allow as string[]).includes(kind);
}

export function decidePermission(policy: AcpPermissionPolicy, request: RequestPermissionRequest): PermissionDecision {
  const kind = request.toolCall.kind ?? "other";
  const allowed = allowedByPolicy(policy, kind);
  const wanted = allowed ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  const option = wanted.map((k) => request.options.find((o) => o.kind === k)).find((o) => o !== undefined);
  if (!option) return { allowed: false, kind, response: { outcome: { outcome: "cancelled" } } };
  return { allowed, kind, response: { outcome: { outcome: "selected", optionId: option.optionId } } };
}
