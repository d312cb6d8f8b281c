/** Debian's Chromium through playwright-core; every page records console errors, page errors and off-host requests. */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.SKILLRIG_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-output", "screenshots");

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium with SKILLRIG_WITH_BROWSER=1 bash scripts/setup-system.sh (or point SKILLRIG_CHROMIUM at one)`,
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and warnings, uncaught page errors, failed requests and requests to any other host. */
  problems: string[];
  /** Console lines the test expects (an API error it provokes on purpose); they are not problems. */
  allow(pattern: RegExp): void;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPage(browser: Browser, baseUrl: string, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed: RegExp[] = [];
  const origin = new URL(baseUrl).origin;
  page.on("console", (m) => {
    if ((m.type() === "error" || m.type() === "warning") && !allowed.some((a) => a.test(m.text())))
      problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith("data:") && !r.url().startsWith("blob:"))
      problems.push(`off-host request: ${r.url()}`);
  });
  page.on("requestfailed", (r) => {
    // An EventSource the page closes on purpose (the job finished, the page changed) is aborted, not failed.
    if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed request: ${r.url()} ${r.failure()?.errorText}`);
  });
  return {
    page,
    problems,
    allow: (pattern) => allowed.push(pattern),
    shot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    close: () => context.close(),
  };
}

/** The pages a test opens, each watched; after the test, all are closed and their problems handed back (expect none). */
export class OpenedPages {
  private pages: WatchedPage[] = [];
  constructor(private readonly browser: () => Browser) {}

  /** A new watched page at `baseUrl` + `hash`. */
  async open(baseUrl: string, hash: string, viewport?: { width: number; height: number }): Promise<WatchedPage> {
    const w = await openPage(this.browser(), baseUrl, viewport);
    this.pages.push(w);
    await w.page.goto(`${baseUrl}${hash}`);
    return w;
  }

  /** Closes every page opened since the last call; returns their problems. */
  async closeAll(): Promise<string[]> {
    const problems = this.pages.flatMap((w) => w.problems);
    for (const w of this.pages) await w.close();
    this.pages = [];
    return problems;
  }
}
