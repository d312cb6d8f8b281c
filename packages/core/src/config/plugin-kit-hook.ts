/**
 * A module resolve hook (`module.register`), registered only when a config lists a plugin that lives outside every
 * `node_modules` folder: a package linked from a sibling folder (`npm i -D ../my-plugin`, `file:`, `npm link`) or
 * a plugin file given by path. Node resolves a module's imports from its real path, so such a plugin looks for
 * `@skillrig/core` and the kits beside its own sources, where there are none (or a second copy of them).
 *
 * For a `@skillrig/*` import made from inside one of those plugin folders that Node cannot resolve there, this resolves
 * it from the project (the folder of the config file, where the project installed skillrig), then from skillrig's
 * own installation. So a plugin folder without node_modules gets the project's one copy of core and its kits; a
 * folder with its own copies keeps them (errors are recognised across copies by their brand); every other import,
 * and every other importer, is untouched.
 */
interface KitHookData {
  /** file: URLs of plugin folders (each ending with "/") whose `@skillrig/*` imports are redirected. */
  roots: string[];
  /** file: URLs to resolve from, in order: a file in the project's folder, then one in skillrig's installation. */
  from: string[];
}

type ResolveContext = { parentURL?: string; conditions?: string[]; importAttributes?: Record<string, string> };
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<{ url: string; format?: string | null }>;

let data: KitHookData = { roots: [], from: [] };

export function initialize(value: KitHookData): void {
  data = value;
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const parent = context.parentURL;
    if (!specifier.startsWith("@skillrig/") || parent === undefined || !data.roots.some((root) => parent.startsWith(root))) throw error;
    for (const parentURL of data.from) {
      try {
        return await nextResolve(specifier, { ...context, parentURL });
      } catch {
        // Not installed there either: try the next place.
      }
    }
    throw error;
  }
}
