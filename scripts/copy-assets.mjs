// Copies non-TypeScript assets (JSON schemas, Python harnesses, templates) from src to dist,
// keeping their relative paths, so packages ship them next to the compiled code.
// usage: node copy-assets.mjs <src> <dist> <ext> [<ext> ...]
import { cpSync, readdirSync, statSync, mkdirSync } from "node:fs";
import { join, dirname, relative } from "node:path";

const [src, dist, ...exts] = process.argv.slice(2);
if (!src || !dist || exts.length === 0) {
  console.error("usage: copy-assets.mjs <src> <dist> <ext>...");
  process.exit(2);
}
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (exts.some((e) => name.endsWith(e))) {
      const target = join(dist, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}
walk(src);
