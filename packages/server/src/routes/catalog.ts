/** What the server can run: skills (with their schemas, for building forms) and engines. */
import type { SkillManifest } from "@skillrig/core";
import { fileInputNames, inlineInputNames } from "@skillrig/skills/protocol";
import type { FastifyInstance } from "fastify";
import { ref, responses } from "../api-schemas.js";
import type { ServerContext } from "../server-context.js";

/**
 * A skill as listed: `engines` are those this server can run it with, the skill's engines that a loaded plugin
 * claims (a plain skill, or one whose runner.json names no engine, runs on any: all of the server's). An engine the
 * skill names but no plugin provides would only answer 400 engine_not_found, so it is not advertised.
 */
function summary(skill: SkillManifest, serverEngines: readonly string[]) {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    ...(skill.version === undefined ? {} : { version: skill.version }),
    engines:
      skill.plain === true || skill.engines.length === 0
        ? [...serverEngines]
        : skill.engines.filter((engine) => serverEngines.includes(engine)),
    file_inputs: fileInputNames(skill),
    inline_inputs: inlineInputNames(skill),
    kind: skill.plain === true ? "plain" : "runner",
  };
}

function engineNames(context: ServerContext): string[] {
  return context.runner.claims("engine").map((claim) => claim.name);
}

export function catalogRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get(
    "/v1/skills",
    {
      schema: {
        operationId: "listSkills",
        summary: "The skills this server can run",
        tags: ["skills"],
        response: {
          200: { description: "Skills, each with the engines this server can run it with", ...ref("SkillList") },
          ...responses.errorResponses(401),
        },
      },
    },
    async () => {
      const listing = context.execution.listSkills();
      const engines = engineNames(context);
      return {
        skills: listing.skills.map((skill) => summary(skill, engines)),
        broken: listing.broken.map((b) => ({ id: b.id, error: b.error })),
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/skills/:id",
    {
      schema: {
        operationId: "getSkill",
        summary: "One skill with its input, parameter and output schemas",
        tags: ["skills"],
        params: { type: "object", required: ["id"], properties: { id: { type: "string", minLength: 1, maxLength: 200 } } },
        response: { 200: { description: "The skill", ...ref("SkillDetail") }, ...responses.errorResponses(401, 404) },
      },
    },
    async (request) => {
      const skill = context.execution.skill(request.params.id);
      return {
        ...summary(skill, engineNames(context)),
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
        operationId: "listEngines",
        summary: "The engines plugins provide",
        tags: ["engines"],
        response: {
          200: { description: "Engines the loaded plugins claim", ...ref("EngineList") },
          ...responses.errorResponses(401),
        },
      },
    },
    async () => ({ engines: context.runner.claims("engine").map((c) => ({ name: c.name, plugin: c.plugin, info: c.info ?? {} })) }),
  );
}
