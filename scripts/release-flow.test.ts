/**
 * The release flow runs end to end short of uploading: `changeset version` (on a copy of the manifests,
 * with a throwaway changeset) and `pnpm publish -r --dry-run`. The CPU EP and native-hip must always carry
 * the versions of their prebuilt platform packages: each pins its platform package exactly (workspace:*),
 * so a bump of one without the other would install an addon built from other sources.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('..', import.meta.url));
const changesetBin = join(repo, 'node_modules/@changesets/cli/bin.js');
type Manifest = { name: string; version: string; private?: boolean; optionalDependencies?: Record<string, string> };
const manifests = (root: string): Manifest[] =>
  readdirSync(join(root, 'packages')).flatMap((d) => {
    try {
      return [JSON.parse(readFileSync(join(root, 'packages', d, 'package.json'), 'utf8')) as Manifest];
    } catch {
      return [];
    }
  });

describe('release flow', () => {
  it('changeset version bumps ep-cpu and native-hip each with its platform package', () => {
    const copy = mkdtempSync(join(tmpdir(), 'switchyard-changeset-'));
    try {
      for (const f of ['.changeset', 'package.json', 'pnpm-workspace.yaml']) cpSync(join(repo, f), join(copy, f), { recursive: true });
      for (const d of readdirSync(join(repo, 'packages'))) {
        mkdirSync(join(copy, 'packages', d), { recursive: true });
        try {
          cpSync(join(repo, 'packages', d, 'package.json'), join(copy, 'packages', d, 'package.json'));
        } catch {
          // Not a package folder.
        }
      }
      writeFileSync(join(copy, '.changeset', 'zz-throwaway-test.md'), '---\n"@switchyard/ep-cpu": patch\n"@switchyard/native-hip": patch\n---\n\nthrowaway change for the release-flow test\n');
      execFileSync(process.execPath, [changesetBin, 'version'], { cwd: copy, stdio: 'pipe', timeout: 60_000 });
      const before = new Map(manifests(repo).map((m) => [m.name, m.version]));
      const after = new Map(manifests(copy).map((m) => [m.name, m.version]));
      expect(after.get('@switchyard/ep-cpu')).not.toBe(before.get('@switchyard/ep-cpu'));
      expect(after.get('@switchyard/ep-cpu-linux-x64-gnu')).toBe(after.get('@switchyard/ep-cpu'));
      // The pin stays a workspace protocol; pnpm publish turns it into the exact version.
      expect(manifests(copy).find((m) => m.name === '@switchyard/ep-cpu')?.optionalDependencies).toEqual({ '@switchyard/ep-cpu-linux-x64-gnu': 'workspace:*' });
      expect(after.get('@switchyard/native-hip')).not.toBe(before.get('@switchyard/native-hip'));
      expect(after.get('@switchyard/native-hip-linux-x64-gnu')).toBe(after.get('@switchyard/native-hip'));
      expect(manifests(copy).find((m) => m.name === '@switchyard/native-hip')?.optionalDependencies).toEqual({ '@switchyard/native-hip-linux-x64-gnu': 'workspace:*' });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('pnpm publish -r --dry-run goes through every public package', () => {
    const out = execFileSync('pnpm', ['publish', '-r', '--dry-run', '--no-git-checks'], { cwd: repo, encoding: 'utf8', stdio: 'pipe', timeout: 150_000 });
    const publishable = manifests(repo).filter((m) => !m.private);
    expect(publishable.length).toBeGreaterThanOrEqual(8);
    for (const m of publishable) expect(out, m.name).toContain(`${m.name}@${m.version}`);
  }, 180_000);
});
