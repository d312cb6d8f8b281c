// Bundles what a command loads into a few files (dist/bundle/), run after tsc: Node 20 has no module compile cache,
// and each ES module costs a resolve, a read, a compile and a link at every start (docs/architecture.md, "The CLI's
// bundle"). One entry per command keeps the lazy loading of main.ts: a command loads its own chunk and the chunks
// it shares, never another command's.
//
// Bundled: the CLI's own modules and the packages nothing outside the CLI imports (BUNDLED below). Everything else
// stays a file of its own package, loaded as before: core and the kits (a plugin from the user's project must meet
// the same copy), the sandbox, the oracle, the skills and solve packages (engine-kit and the server import them),
// and every third-party package. A bundled module's `import.meta.url` becomes `bundledFileUrl(package, path)`
// (src/bundled-file-url.ts), so files it finds beside itself are found where its package ships them.
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(PACKAGE_DIR, "dist");
const OUT = join(DIST, "bundle");
const HELPER = join(DIST, "bundled-file-url.js");

/** Packages inlined into the bundle (with the CLI itself). Each must be a dependency of the CLI that no package outside the CLI imports. */
const BUNDLED = ["@skillrig/evals", "@skillrig/view", "@skillrig/stats", "@skillrig/deliverable-script", "@skillrig/deliverable-cli"];
const BUNDLED_SPECIFIER = new RegExp(`^(${BUNDLED.map((name) => name.replace("/", "\\/")).join("|")})(\\/|$)`);

/** Files the bundle still loads as files of the CLI (generated at build time; the start-up test expects them). */
const KEEP_AS_FILE = new Set([join(DIST, "config.validate.js")]);

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
/** What a published CLI can import: its own dependencies and peers (a devDependency is not installed with it). */
const DECLARED = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
const packageName = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
const packageRoots = new Map([["@skillrig/cli", PACKAGE_DIR]]);
for (const name of BUNDLED) packageRoots.set(name, dirname(require.resolve(`${name}/package.json`)));

/** The bundled package a file belongs to, and its path inside that package; undefined for any other file. */
function owner(file) {
  for (const [name, root] of packageRoots) {
    const path = relative(root, file);
    if (!path.startsWith("..") && !path.includes(`node_modules${sep}`)) return { name, path: path.split(sep).join("/") };
  }
  return undefined;
}

/** A module's source with its location made explicit: `import.meta` of the original file, dynamic imports of kept files. */
function relocated(file, source) {
  const where = owner(file);
  if (where === undefined) throw new Error(`${file} is not in a bundled package; add its package to BUNDLED or keep it external`);
  const at = `${JSON.stringify(where.name)}, ${JSON.stringify(where.path)}`;
  let text = source.replace(/import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g, (call, specifier) => {
    const target = join(dirname(file), specifier);
    if (!KEEP_AS_FILE.has(target)) return call;
    const kept = owner(target);
    return `import(__bundledFileUrl(${JSON.stringify(kept.name)}, ${JSON.stringify(kept.path)}))`;
  });
  if (text === source && !source.includes("import.meta")) return source;
  text = text.replaceAll("import.meta.url", `__bundledFileUrl(${at})`).replaceAll("import.meta.dirname", `__bundledFileDir(${at})`);
  if (text.includes("import.meta")) throw new Error(`${file} uses import.meta beyond url and dirname; the bundle cannot relocate it`);
  return `import { bundledFileUrl as __bundledFileUrl, bundledFileDir as __bundledFileDir } from ${JSON.stringify(HELPER)};\n${text}`;
}

/** Keeps every package outside BUNDLED external, and relocates the modules that are bundled. */
const relocation = {
  name: "skillrig-relocation",
  setup(b) {
    // An external import is resolved from the bundle's folder, in the CLI's package: a package a bundled module
    // imports must therefore be a dependency of the CLI too (at the bundled package's own range).
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (BUNDLED_SPECIFIER.test(args.path) || args.path.startsWith("node:")) return undefined;
      if (!DECLARED.has(packageName(args.path))) {
        return {
          errors: [
            {
              text: `${args.path} (imported by ${relative(PACKAGE_DIR, args.importer)}) stays external, so @skillrig/cli must list ${packageName(args.path)} in its dependencies`,
            },
          ],
        };
      }
      return { path: args.path, external: true };
    });
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      return { contents: args.path === HELPER ? source : relocated(args.path, source), loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

const commands = readdirSync(join(DIST, "commands"))
  .filter((file) => file.endsWith(".js"))
  .map((file) => join(DIST, "commands", file));

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: [join(DIST, "main.js"), ...commands],
  outbase: DIST,
  outdir: OUT,
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["node:*"],
  plugins: [relocation],
  logLevel: "warning",
});
