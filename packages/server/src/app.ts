/**
 * The Fastify app: every route under /v1 plus /healthz, the OpenAPI document generated from the route schemas,
 * bearer-token auth, zip bodies for uploads, and one error shape for everything.
 */
import { createRequire } from "node:module";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";
import { isSkillrigError } from "@skillrig/core";
import { bearerCheck } from "./auth.js";
import { errorBody, handleError, sendError } from "./http-errors.js";
import type { ServerContext } from "./server-context.js";
import { artifactRoutes } from "./routes/artifacts.js";
import { catalogRoutes } from "./routes/catalog.js";
import { eventRoutes } from "./routes/events.js";
import { jobRoutes } from "./routes/jobs.js";

const version: string = createRequire(import.meta.url)("../package.json").version;

/** JSON bodies (jobs, task files) may be this large; uploads have their own limit. */
const JSON_BODY_LIMIT = 10 * 1024 * 1024;
const ZIP_TYPES = ["application/zip", "application/x-zip-compressed", "application/octet-stream"];

export async function buildApp(context: ServerContext, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: JSON_BODY_LIMIT,
    // Report every violation, and never change what the client sent (no coercion, no stripping, no defaults).
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } },
    return503OnClosing: true,
  });

  await app.register(swagger, {
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

  // Browsers' file forms send multipart/form-data: one file part holding the zip, under the same size limit.
  await app.register(multipart, { limits: { fileSize: context.settings.uploadLimitBytes, files: 1, fields: 10, parts: 20 } });
  app.addContentTypeParser(ZIP_TYPES, { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  if (context.settings.tokens.length > 0) {
    const check = bearerCheck(context.settings.tokens);
    app.addHook("onRequest", async (request, reply) => {
      if (request.url === "/healthz") return;
      try {
        check(request.headers.authorization);
      } catch (error) {
        if (isSkillrigError(error)) return sendError(reply, error);
        throw error;
      }
    });
  }

  app.setErrorHandler((error, request, reply) => handleError(error as Error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(
      errorBody({
        code: "usage",
        message: `no route ${request.method} ${request.url.split("?")[0]}`,
        hint: "GET /v1/openapi.json lists the API",
      }),
    ),
  );

  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness and queue depth",
        tags: ["server"],
        response: {
          200: {
            type: "object",
            properties: {
              ok: { type: "boolean" },
              version: { type: "string" },
              running: { type: "integer" },
              queued: { type: "integer" },
              waiting_upload: { type: "integer" },
              concurrency: { type: "integer" },
            },
          },
        },
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

  jobRoutes(app, context);
  eventRoutes(app, context);
  artifactRoutes(app, context);
  catalogRoutes(app, context);
  return app;
}
