import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** The system Chromium the browser tests drive (.ci/run installs it; without it they skip and say why). */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** Why a browser test is skipped here, printed once by the file that skips. */
export const NO_CHROMIUM = `${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it in CI)`;

/**
 * One headless Chromium for a describe block: launched in its beforeAll with a fresh profile under a temp folder
 * named after `prefix`, closed in its afterAll. The getter returns the context (it throws when Chromium is missing:
 * the tests using it are skipped then).
 */
export function useBrowser(prefix: string): { dir: string; context: () => BrowserContext } {
  const dir = mkdtempSync(join(tmpdir(), `ma-${prefix}-`));
  let context: BrowserContext | null = null;
  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
  });
  return {
    dir,
    context: () => {
      if (!context) throw new Error(`no browser: ${NO_CHROMIUM}`);
      return context;
    },
  };
}
