/**
 * Bearer tokens from `server.tokens`. Compared through SHA-256 digests with timingSafeEqual so that neither the
 * length nor the content of a token leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { SkillrigError } from "@skillrig/core";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Returns a check that throws `unauthorized` unless the Authorization header carries one of `tokens`. */
export function bearerCheck(tokens: string[]): (authorization: string | undefined) => void {
  const digests = tokens.map(digest);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) {
      throw new SkillrigError("unauthorized", "this server needs a bearer token: send Authorization: Bearer <token>", {
        field: "authorization",
      });
    }
    const given = digest(match[1]!);
    if (!digests.some((d) => timingSafeEqual(d, given))) {
      throw new SkillrigError("unauthorized", "the bearer token is not one of server.tokens", { field: "authorization" });
    }
  };
}
