/**
 * The Fastify app: every route under /v1 plus /healthz, the OpenAPI document generated from the route schemas,
 * bearer-token auth, zip bodies for uploads, and one error shape for everything.
 */
import { createRequire } from "node:module";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";
import { isSkillrigError, loopbackRequestRefusal, SkillrigError } from "@skillrig/core";
import { findExcessiveNesting } from "@skillrig/oracle";
import { ref, responses, sharedSchemas } from "./api-schemas.js";
import { anonymousCaller, bearerCheck, type Caller } from "./auth.js";
import { errorBody, handleError, sendError } from "./http-errors.js";
import { isLoopbackHost } from "./server-config.js";
import { withoutServerPaths } from "./server-paths.js";
import type { ServerContext } from "./server-context.js";
import { artifactRoutes } from "./routes/artifacts.js";
import { catalogRoutes } from "./routes/catalog.js";
import { eventRoutes } from "./routes/events.js";
import { jobRoutes } from "./routes/jobs.js";
import { usageRoutes } from "./routes/usage.js";

const version: string = createRequire(import.meta.url)("../package.json").version;

const ZIP_TYPES = ["application/zip", "application/x-zip-compressed", "application/octet-stream"];

declare module "fastify" {
  interface FastifyRequest {
    /** The JSON body's text as received (set for application/json bodies). */
    jsonText: string | null;
    /** Who sent it (the tenant of its token; the tenant `default` on a server without tokens). */
    readonly caller: Caller;
    /** The caller as the onRequest hook found it; null before the hook ran (and for /healthz). Read `caller`. */
    authenticated: Caller | null;
  }
}

export async function buildApp(context: ServerContext, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // JSON bodies (jobs, task files) may be this large; uploads have their own limit.
    bodyLimit: context.settings.jsonBodyLimitBytes,
    // Report every violation, and never change what the client sent (no coercion, no stripping, no defaults).
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } },
    return503OnClosing: true,
  });

  // Shared schemas first: routes and the document refer to them by $id.
  for (const schema of sharedSchemas()) app.addSchema(schema);
  await registerOpenApiDocument(app, context);
  await registerUploadBodies(app, context);
  refuseOtherHostsOnLoopback(app, context);
  parseJsonBodies(app, context);
  authenticateCallers(app, context);
  answerErrors(app, context);
  healthRoutes(app, context);
  jobRoutes(app, context);
  eventRoutes(app, context);
  artifactRoutes(app, context);
  catalogRoutes(app, context);
  usageRoutes(app, context);
  return app;
}

/** The OpenAPI document (GET /v1/openapi.json), built from the routes' schemas. */
async function registerOpenApiDocument(app: FastifyInstance, context: ServerContext): Promise<void> {
  await app.register(swagger, {
    // A shared schema is listed in components.schemas under its $id (the default names them def-0, def-1 ...).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
    openapi: {
      openapi: "3.0.3",
      info: { title: "skillrig jobs server", version, description: "Skill jobs and oracle runs over HTTP. See docs/server.md." },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: context.settings.tokens.length > 0 ? [{ bearer: [] }] : [],
    },
    // Upload bodies are raw zips, which Fastify does not validate (there is nothing to validate before reading
    // the archive); their request body is described here so the document is complete.
    transformObject(documentObject) {
      const doc = (documentObject as { openapiObject: { paths?: Record<string, Record<string, { requestBody?: unknown }>> } })
        .openapiObject;
      const upload = doc.paths?.["/v1/jobs/{id}/upload"]?.post;
      if (upload) {
        upload.requestBody = {
          required: true,
          content: {
            ...Object.fromEntries(ZIP_TYPES.map((t) => [t, { schema: { type: "string", format: "binary" } }])),
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file"],
                properties: { file: { type: "string", format: "binary", description: "The zip" } },
              },
            },
          },
        };
      }
      return doc;
    },
  });
}

/** Upload bodies: a raw zip, or a browser form's one file part, under the upload size limit. */
async function registerUploadBodies(app: FastifyInstance, context: ServerContext): Promise<void> {
  // Browsers' file forms send multipart/form-data: one file part holding the zip, under the same size limit.
  await app.register(multipart, { limits: { fileSize: context.settings.uploadLimitBytes, files: 1, fields: 10, parts: 20 } });
  app.addContentTypeParser(ZIP_TYPES, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
}

/** On a loopback host: requests addressed by another name or sent from another origin are refused. */
function refuseOtherHostsOnLoopback(app: FastifyInstance, context: ServerContext): void {
  // A loopback server answers only requests addressed to it by a loopback name and its port, from no origin or its
  // own: a page that rebinds its name to 127.0.0.1 (or another site's form) cannot drive it. On every route.
  if (isLoopbackHost(context.settings.host)) {
    const host = context.settings.host;
    app.addHook("onRequest", async (request, reply) => {
      const refusal = loopbackRequestRefusal(
        { host: request.headers.host, origin: request.headers.origin, method: request.method },
        { host, port: request.socket.localPort ?? 0, origin: "all" },
      );
      if (refusal)
        return sendError(
          reply,
          new SkillrigError(refusal.code, refusal.message, { field: refusal.code === "forbidden_host" ? "host" : "origin" }),
        );
    });
  }
}

/** JSON bodies, depth-checked on their text, which is kept for exact task values. */
function parseJsonBodies(app: FastifyInstance, context: ServerContext): void {
  // JSON bodies: the depth limit is checked on the raw text before anything parses or walks the value, and the text
  // is kept (request.jsonText) so a task in it is read exactly as sent (numbers as written), as a local run reads it.
  const parseJson = app.getDefaultJsonParser("error", "error");
  const maxDepth = context.settings.jsonMaxDepth;
  app.decorateRequest("jsonText", null);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    const deep = findExcessiveNesting(text, maxDepth);
    if (deep) {
      const message = `nests objects and arrays more than ${maxDepth} levels deep (server.json_max_depth)`;
      done(
        new SkillrigError("schema_violation", `the request body ${message}, at ${deep.pointer}`, {
          pointer: deep.pointer,
          field: "body",
          violations: [{ pointer: deep.pointer, message, rule: "server.json_max_depth" }],
          details: { limit: "server.json_max_depth", max: maxDepth },
        }),
        undefined,
      );
      return;
    }
    request.jsonText = text;
    parseJson(request, text, done);
  });
}

/** Who sent each request: the tenant of its bearer token, or the tenant `default` on a server without tokens. */
function authenticateCallers(app: FastifyInstance, context: ServerContext): void {
  const anonymous = anonymousCaller(context.settings.tenants);
  // Set by the onRequest hook below for every request but /healthz, before any route reads `caller`.
  app.decorateRequest("authenticated", null);
  app.decorateRequest("caller", {
    getter(): Caller {
      if (this.authenticated === null)
        throw new SkillrigError("unauthorized", "the request was not authenticated", { field: "authorization" });
      return this.authenticated;
    },
  });
  if (context.settings.tokens.length > 0) {
    const check = bearerCheck(context.settings.tenants);
    app.addHook("onRequest", async (request, reply) => {
      if (request.url === "/healthz") return;
      try {
        request.authenticated = check(request.headers.authorization);
      } catch (error) {
        if (isSkillrigError(error)) return sendError(reply, error);
        throw error;
      }
    });
  } else {
    app.addHook("onRequest", async (request) => {
      request.authenticated = anonymous;
    });
  }
}

/** Errors as the API's error body, never naming the server's folders; an unknown route says where the API is listed. */
function answerErrors(app: FastifyInstance, context: ServerContext): void {
  app.setErrorHandler((error, request, reply) => handleError(error as Error, request, reply));
  // No error answer names the server's folders, whatever wrote its message (an fs error's path, a library's).
  const folders = { dataDir: context.settings.dataDir };
  app.addHook("preSerialization", async (_request, reply, payload) =>
    reply.statusCode >= 400 ? withoutServerPaths(payload, folders) : payload,
  );
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(
      errorBody({
        code: "usage",
        message: `no route ${request.method} ${request.url.split("?")[0]}`,
        hint: "GET /v1/openapi.json lists the API",
      }),
    ),
  );
}

/** GET /healthz (liveness and queue depth, no token needed) and the OpenAPI document. */
function healthRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get(
    "/healthz",
    {
      schema: {
        operationId: "health",
        summary: "Liveness and queue depth",
        tags: ["server"],
        security: [],
        response: { 200: { description: "The server is up", ...ref("Health") }, ...responses.errorResponses() },
      },
    },
    async () => {
      const counts = await context.queue.store.counts();
      return {
        ok: true,
        version,
        running: counts.running,
        queued: counts.queued,
        waiting_upload: counts.waiting_upload,
        concurrency: context.settings.concurrency,
      };
    },
  );
  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
