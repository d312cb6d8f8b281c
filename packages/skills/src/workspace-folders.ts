/**
 * The folders of a job's workspace that skillrig and the engines own, listed once. The protocol refuses a plain
 * skill's file that would land in one, the artifact search does not look in them, the eval's outputs/ copy leaves
 * their installed skills out, and trigger evals install neighbour skills where the engines discover skills.
 *
 * Browser-safe (no `node:` import): protocol.ts re-exports it, and the web form bundles protocol.ts.
 */

/**
 * Each engine's workspace folder: `.agents/` (skillrig installs the skill at `.agents/skills/<id>/`; Gemini CLI and
 * Codex discover skills there), `.claude/` (Claude Code's skills and settings), `.gemini/`, `.codex/` (their
 * workspace settings and skills).
 */
export const ENGINE_WORKSPACE_FOLDERS: readonly string[] = [".agents", ".claude", ".gemini", ".codex"];

/** skillrig's own folder in the workspace: the answer channel (`.skillrig/answer.json`). */
export const SKILLRIG_WORKSPACE_FOLDER = ".skillrig";

/** Every top-level workspace folder skillrig and the engines own: a plain skill's file may not land in one. */
export const RESERVED_WORKSPACE_FOLDERS: readonly string[] = [...ENGINE_WORKSPACE_FOLDERS, SKILLRIG_WORKSPACE_FOLDER];

/** Where installed skill copies may sit (`<engine folder>/skills`): never the agent's work. */
export const SKILL_INSTALL_DIRS: readonly string[] = ENGINE_WORKSPACE_FOLDERS.map((folder) => `${folder}/skills`);

/**
 * Where the engines discover a workspace's skills: `.agents/skills` (Gemini CLI, Codex) and `.claude/skills`
 * (Claude Code, which does not look in `.agents/`). A skill installed in both is seen by every engine once.
 */
export const SKILL_DISCOVERY_DIRS: readonly string[] = [".agents/skills", ".claude/skills"];

/** Folders the search for an artifact by name skips: the owned ones, and tool folders an agent's work never is. */
export const ARTIFACT_SEARCH_SKIPPED: readonly string[] = [...RESERVED_WORKSPACE_FOLDERS, ".git", "node_modules", ".venv", "__pycache__"];
