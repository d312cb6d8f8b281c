import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The web app is built once, at package build time, into dist/web; the view server serves it from there.
// Preact's JSX through esbuild's automatic runtime: no framework plugin needed.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  logLevel: "warn",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600, // Observable Plot and its d3 modules: about 250 kB of the 500 (docs/view.md)
  },
});
