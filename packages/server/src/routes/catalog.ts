/** What the server can run: skills (with their schemas, for building forms) and engines. */
import type { SkillManifest } from "@skillrig/core";
import { fileInputNames, inlineInputNames } from "@skillrig/skills/protocol";
import type { FastifyInstance } from "fastify";
import { responses, skillDetail, skillSummary } from "../api-schemas.js";
import type { ServerContext } from "../server-context.js";

function summary(skill: SkillManifest) {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    ...(skill.version === undefined ? {} : { version: skill.version }),
    engines: skill.engines,
    file_inputs: fileInputNames(skill),
    inline_inputs: inlineInputNames(skill),
    kind: skill.plain === true ? "plain" : "runner",
  };
}

export function catalogRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get(
    "/v1/skills",
    {
      schema: {
        summary: "The skills this server can run",
        tags: ["skills"],
        response: {
          200: {
            type: "object",
            properties: {
              skills: { type: "array", items: skillSummary },
              broken: {
                type: "array",
                description: "Skill folders that failed to load, and why",
                items: {
                  type: "object",
                  properties: {
                    id: { type: "string" },
                    error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
                  },
                },
              },
            },
          },
          ...responses.errorResponses(401),
        },
      },
    },
    async () => {
      const listing = context.execution.listSkills();
      return { skills: listing.skills.map(summary), broken: listing.broken.map((b) => ({ id: b.id, error: b.error })) };
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/skills/:id",
    {
      schema: {
        summary: "One skill with its input, parameter and output schemas",
        tags: ["skills"],
        params: { type: "object", required: ["id"], properties: { id: { type: "string", minLength: 1, maxLength: 200 } } },
        response: { 200: skillDetail, ...responses.errorResponses(401, 404) },
      },
    },
    async (request) => {
      const skill = context.execution.skill(request.params.id);
      return {
        ...summary(skill),
        schemas: {
          input: skill.schemas.input?.schema ?? null,
          parameter: skill.schemas.parameter?.schema ?? null,
          output: skill.schemas.output?.schema ?? null,
        },
        artifacts: skill.artifacts.map((a) => ({ field: a.field, role: a.role, filename: a.filename, required: a.required })),
      };
    },
  );

  app.get(
    "/v1/engines",
    {
      schema: {
        summary: "The engines plugins provide",
        tags: ["engines"],
        response: {
          200: {
            type: "object",
            properties: {
              engines: {
                type: "array",
                items: {
                  type: "object",
                  required: ["name", "plugin"],
                  properties: {
                    name: { type: "string" },
                    plugin: { type: "string" },
                    info: { type: "object", additionalProperties: true },
                  },
                },
              },
            },
          },
          ...responses.errorResponses(401),
        },
      },
    },
    async () => ({ engines: context.runner.claims("engine").map((c) => ({ name: c.name, plugin: c.plugin, info: c.info ?? {} })) }),
  );
}
