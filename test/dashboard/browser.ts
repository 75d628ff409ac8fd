// Debian's chromium driven by playwright-core, for the dashboard's tests; and where their
// screenshots go (test-artifacts/dashboard/, printed, kept after the run to be looked at).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { repoRoot } from '../cli/postline-process.js';

export const artifactsDir = path.join(repoRoot, 'test-artifacts', 'dashboard');

/** Fails (never skips) without a browser: the dashboard would go untested. */
export async function launchChromium(): Promise<Browser> {
  let executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) {
    try {
      executablePath = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
    } catch {
      throw new Error('chromium not found: install it (`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH');
    }
  }
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await fs.mkdir(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
