/**
 * Test fixture: builds native/test/fake_migraphx.c — a stand-in libmigraphx_c.so with predictable toy
 * semantics (see that file) — as `libmigraphx_c.so.<version>` plus a `libmigraphx_c.so` link, and
 * the loader addon, so the C API path can be exercised on machines without MIGraphX.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const packageRoot = join(import.meta.dirname, '..', '..');
export const FAKE_SOURCE = join(packageRoot, 'native', 'test', 'fake_migraphx.c');

/** Builds the addon if it is out of date (milliseconds when current; no MIGraphX needed). */
export function buildAddon(): void {
  execFileSync(process.execPath, [join(packageRoot, 'scripts', 'build-native.mjs')], { stdio: 'pipe' });
}

export function buildFakeMigraphx(options: { version?: string; oldLayout?: boolean } = {}): { dir: string; path: string; realPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sy-mgx-fake-'));
  const realPath = join(dir, `libmigraphx_c.so.${options.version ?? '3.0.70200'}`);
  execFileSync('cc', ['-shared', '-fPIC', '-O1', ...(options.oldLayout ? ['-DOLD_LAYOUT'] : []), '-o', realPath, FAKE_SOURCE]);
  const path = join(dir, 'libmigraphx_c.so');
  symlinkSync(realPath, path);
  return { dir, path, realPath };
}
