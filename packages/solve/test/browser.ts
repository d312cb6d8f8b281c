/** Opens an HTML file in Debian's headless Chromium through playwright-core, collecting console errors. */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.SKILLRIG_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function withPage<T>(htmlFile: string, use: (page: Page, problems: string[]) => Promise<T>): Promise<T> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium with SKILLRIG_WITH_BROWSER=1 bash scripts/setup-system.sh (or point SKILLRIG_CHROMIUM at one)`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), "solve-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  const problems: string[] = [];
  try {
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    // Anything the page tries to fetch is a resource the self-contained report should not have.
    page.on("request", (r) => {
      if (!r.url().startsWith("file:")) problems.push(`request: ${r.url()}`);
    });
    page.on("requestfailed", (r) => problems.push(`failed request: ${r.url()}`));
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load" });
    return await use(page, problems);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}
