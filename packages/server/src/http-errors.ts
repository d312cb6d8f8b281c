/**
 * Every error the API answers with has the same body, `{ "error": SerializedError }`, and a status chosen by
 * its code; nothing ever answers with a stack trace.
 */
import { isSkillrigError, SkillrigError, toViolations, formatViolations, type ErrorCode, type SerializedError } from "@skillrig/core";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  skill_not_found: 404,
  job_not_found: 404,
  engine_not_found: 400,
  usage: 400,
  upload_unsafe: 400,
  schema_violation: 422,
  input_invalid: 422,
  parameter_invalid: 422,
  input_missing_file: 422,
  invalid_test_format: 422,
  invalid_task: 422,
  skill_interactive_only: 422,
  job_state_conflict: 409,
  upload_too_large: 413,
  upload_not_zip: 415,
  queue_full: 429,
  quota_exceeded: 429,
  cost_limit: 429,
  unauthorized: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  invalid_skill: 500,
  invalid_config: 500,
};

export function statusOf(code: string): number {
  return STATUS_BY_CODE[code as ErrorCode] ?? 500;
}

export function errorBody(error: SerializedError): { error: SerializedError } {
  return { error };
}

const UPLOAD_ROUTE = /\/upload$/;

/** Fastify's own errors (validation, body size, content type, bad JSON) in our shape. */
function fromFastify(error: FastifyError, request: FastifyRequest): SkillrigError | undefined {
  if (error.validation) {
    const where = error.validationContext ?? "body";
    const violations = toViolations(error.validation as Parameters<typeof toViolations>[0]).map((v) => ({ ...v, field: where }));
    return new SkillrigError("schema_violation", `the request ${where} is invalid: ${formatViolations(violations)}`, {
      pointer: violations[0]?.pointer,
      field: where,
      violations,
    });
  }
  const upload = UPLOAD_ROUTE.test(request.routeOptions.url ?? request.url);
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new SkillrigError(
        upload ? "upload_too_large" : "usage",
        `the request body is larger than the ${request.routeOptions.bodyLimit ?? "configured"} bytes allowed`,
        {
          hint: upload ? "raise server.upload_limit_bytes, or upload fewer or smaller files" : undefined,
        },
      );
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new SkillrigError(
        upload ? "upload_not_zip" : "usage",
        `Content-Type "${request.headers["content-type"] ?? "(none)"}" is not accepted here`,
        {
          field: "content-type",
          hint: upload
            ? "send the zip as the raw body with Content-Type: application/zip"
            : "send JSON with Content-Type: application/json",
        },
      );
    case "FST_REQ_FILE_TOO_LARGE":
      return new SkillrigError("upload_too_large", "the uploaded file is larger than server.upload_limit_bytes allows", {
        hint: "raise server.upload_limit_bytes, or upload fewer or smaller files",
      });
    case "FST_FILES_LIMIT":
      return new SkillrigError("usage", "the form holds more than one file; send one zip", { field: "file" });
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new SkillrigError("usage", error.message);
    default:
      if (error.statusCode === 400 && error instanceof SyntaxError)
        return new SkillrigError("usage", `the request body is not valid JSON: ${error.message}`);
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
        return new SkillrigError("usage", error.message);
      return undefined;
  }
}

/** Seconds a client refused with 429 should wait when the error does not say (`details.retry_after_s`). */
export const DEFAULT_RETRY_AFTER_S = 5;

export function sendError(reply: FastifyReply, error: SkillrigError, status = statusOf(error.code)): FastifyReply {
  if (status === 401) reply.header("www-authenticate", 'Bearer realm="skillrig"');
  if (status === 429) {
    const after = (error.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
    reply.header("retry-after", String(typeof after === "number" ? after : DEFAULT_RETRY_AFTER_S));
  }
  return reply.code(status).send(errorBody(error.toJSON()));
}

export function handleError(error: FastifyError | SkillrigError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isSkillrigError(error)) return sendError(reply, error);
  const mapped = fromFastify(error as FastifyError, request);
  if (mapped) {
    const status =
      mapped.code === "schema_violation"
        ? 422
        : mapped.code === "usage"
          ? ((error as FastifyError).statusCode ?? 400)
          : statusOf(mapped.code);
    return sendError(reply, mapped, status);
  }
  request.log.error(error);
  return sendError(reply, new SkillrigError("unhandled", `the server failed to answer: ${error.message}`), 500);
}
