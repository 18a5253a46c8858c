/**
 * Every package: ESM + d.ts built, `exports` with types first, no tests in what is published, and a
 * clean publint report. Runs on the built packages (setup builds them before tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { publint } from 'publint';

const root = fileURLToPath(new URL('../packages/', import.meta.url));
const packages = readdirSync(root).filter((d) => existsSync(join(root, d, 'package.json')));

describe.each(packages)('package %s', (dir) => {
  const pkgDir = join(root, dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    name: string;
    type?: string;
    exports: Record<string, string | Record<string, string>>;
    files: string[];
  };
  const built = existsSync(join(pkgDir, 'dist'));
  // Prebuilt platform packages (ep-cpu-linux-x64-gnu, native-hip-linux-x64-gnu) hold a binary (and its
  // libraries), no JS to build: they are the packages that name an `os`.
  const isPlatformPackage = (pkg as { os?: string[] }).os !== undefined;

  it('is ESM with exports listing types first', () => {
    expect(pkg.type).toBe('module');
    for (const [key, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === 'string') continue; // data files such as expectation lists
      expect(Object.keys(entry)[0], `${pkg.name} exports['${key}']`).toBe('types');
    }
    if (!isPlatformPackage) expect(pkg.files).toContain('!dist/**/*.test.*');
  });

  it.runIf(isPlatformPackage)('is a platform package: os/cpu/libc set, named for them, an exact optional dependency of its package', () => {
    const platform = pkg as unknown as { os: string[]; cpu: string[]; libc?: string[] };
    const libc = platform.libc?.[0] === 'glibc' ? '-gnu' : platform.libc?.[0] === 'musl' ? '-musl' : '';
    const suffix = `-${platform.os[0]}-${platform.cpu[0]}${libc}`;
    expect(pkg.name.endsWith(suffix), `${pkg.name} ends with ${suffix}`).toBe(true);
    const owner = dir.slice(0, -suffix.length);
    const ownerPkg = JSON.parse(readFileSync(join(root, owner, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string>; dependencies?: Record<string, string> };
    expect(ownerPkg.optionalDependencies?.[pkg.name]).toBe('workspace:*');
    expect(Object.keys(ownerPkg.dependencies ?? {}).filter((d) => !d.startsWith('@switchyard/'))).toEqual([]);
    // changesets bumps the two together: the pin is exact, so one without the other would install a binary built from other sources.
    const fixed = (JSON.parse(readFileSync(join(root, '..', '.changeset', 'config.json'), 'utf8')) as { fixed: string[][] }).fixed;
    expect(fixed.some((group) => group.includes(pkg.name) && group.includes(`@switchyard/${owner}`))).toBe(true);
  });

  it.skipIf(!built)('passes publint and ships no tests', async () => {
    const { messages } = await publint({ pkgDir, level: 'warning', strict: true });
    expect(messages.map((m) => `${m.code} ${JSON.stringify(m.args)}`)).toEqual([]);
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [e.name]));
    expect(walk(join(pkgDir, 'dist')).filter((f) => /\.test\./.test(f))).toEqual([]);
    for (const entry of Object.values(pkg.exports)) {
      if (typeof entry === 'string') continue;
      expect(existsSync(join(pkgDir, entry.types)), entry.types).toBe(true);
      expect(existsSync(join(pkgDir, entry.import)), entry.import).toBe(true);
    }
  });
});
