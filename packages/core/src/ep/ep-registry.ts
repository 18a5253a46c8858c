/**
 * Resolving `executionProviders` into ready EP instances: by name from the registry (or by importing
 * `@switchyard/ep-<name>` on first use), from option objects, or instances as given. Init is lazy and
 * async; an EP that fails is remembered with its reason and skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider, ExecutionProviderConfig } from './execution-provider.js';

export interface ExecutionProviderFactory {
  /** The name users write in `executionProviders`. */
  name: string;
  /**
   * Builds an EP from the user's options. Throwing INVALID_ARGUMENT (bad options) fails the session;
   * any other error skips the EP with that reason.
   */
  create(options: Record<string, unknown>): ExecutionProvider | Promise<ExecutionProvider>;
  /** Order among registered EPs when the user names none (higher first). CPU is always last. */
  priority?: number;
  /**
   * The kind of value each option takes, so text front ends (the CLI's `--ep rocm:deviceId=1`) can type
   * what they read. Options of other shapes are `'json'`. `create` still validates the values.
   */
  optionTypes?: Readonly<Record<string, ExecutionProviderOptionType>>;
  /**
   * onnxruntime's names for this EP's options (`device_id`), each with the option it stands for: the
   * registry renames them before `create`, so provider configs written for onnxruntime keep working.
   */
  optionAliases?: Readonly<Record<string, string | OptionAlias>>;
  /** onnxruntime options this EP accepts without acting on them, each with why (logged at verbose level). */
  inertOptions?: Readonly<Record<string, string>>;
}

export interface OptionAlias {
  /** The option it stands for. */
  name: string;
  /** onnxruntime's form of the value to this EP's (e.g. `'1'` → `true`); the EP still validates the result. */
  convert?(value: unknown): unknown;
}

/** onnxruntime's spellings of a flag (`true`, `1`, `'1'`, `'true'`, …) as a boolean; anything else as given. */
export function ortFlag(value: unknown): unknown {
  if (value === 1 || value === '1' || value === 'true' || value === 'True') return true;
  if (value === 0 || value === '0' || value === 'false' || value === 'False') return false;
  return value;
}

/** A whole number given as a decimal string (onnxruntime's option maps hold strings) as a number; anything else as given. */
export function ortInteger(value: unknown): unknown {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
}

/** What an EP option holds, for front ends that read options as text. */
export type ExecutionProviderOptionType = 'boolean' | 'integer' | 'number' | 'string' | 'json';

const factories = new Map<string, ExecutionProviderFactory>();

/** Makes an EP resolvable by name. Registering a name twice replaces the earlier factory. */
export function registerExecutionProvider(factory: ExecutionProviderFactory): void {
  factories.set(factory.name, factory);
}

export function registeredExecutionProviders(): ExecutionProviderFactory[] {
  return [...factories.values()].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
}

/** The package an EP name is published as; the convention keeps core free of vendor names. */
export function packageForProvider(name: string): string {
  return `@switchyard/ep-${name}`;
}

/** A module that exports `executionProviderFactory` (every EP package does). */
interface EpModule {
  executionProviderFactory?: ExecutionProviderFactory;
}

async function importProviderPackage(name: string): Promise<ExecutionProviderFactory> {
  const pkg = packageForProvider(name);
  const attempts: string[] = [];
  // True while every attempt failed because the package itself is absent (not a dependency of it, nor its code).
  let notFound = true;
  const tryModule = async (load: () => Promise<EpModule>, how: string): Promise<ExecutionProviderFactory | undefined> => {
    try {
      const mod = await load();
      if (mod.executionProviderFactory) return mod.executionProviderFactory;
      attempts.push(`${how}: loaded but exports no executionProviderFactory`);
      notFound = false;
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      attempts.push(`${how}: ${message.split('\n')[0]}`);
      const code = (err as { code?: string }).code;
      if (!((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${pkg}'`))) notFound = false;
    }
    return undefined;
  };
  // 1. Plain import: works where node_modules is flat (npm) or hoisted (pnpm's virtual store).
  let f = await tryModule(() => import(pkg) as Promise<EpModule>, 'import');
  // 2. Resolve from the application's folder, for strict layouts where core cannot see its siblings.
  if (!f) {
    f = await tryModule(async () => {
      const resolved = createRequire(join(process.cwd(), 'package.json')).resolve(pkg);
      return (await import(pathToFileURL(resolved).href)) as EpModule;
    }, `resolve from ${process.cwd()}`);
  }
  if (!f) {
    if (notFound) {
      const available = [...new Set([...factories.keys(), ...installedProviderNames()])].sort();
      throw new SwitchyardError(
        'INVALID_ARGUMENT',
        `unknown execution provider '${name}': none of that name is registered and ${pkg} is not installed. ` +
          `Available here: ${available.map((n) => `'${n}'`).join(', ') || 'none'}; other EPs are packages named ${packageForProvider('<name>')}`,
      );
    }
    throw new SwitchyardError(
      'NO_PROVIDER',
      `execution provider '${name}' is not registered and ${pkg} could not be loaded (${attempts.join('; ')}); install it with \`npm install ${pkg}\``,
    );
  }
  registerExecutionProvider(f);
  return f;
}

/**
 * Names of the EP packages installed where this process can see them: `@switchyard/ep-<name>` folders
 * in the node_modules above the working folder and above core itself (prebuilt platform packages,
 * which declare `os`/`cpu`, are not EPs).
 */
export function installedProviderNames(): string[] {
  const names = new Set<string>();
  const prefix = packageForProvider('');
  const [scope, stem] = prefix.split('/');
  for (const start of [process.cwd(), dirname(fileURLToPath(import.meta.url))]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const folder = join(dir, 'node_modules', scope);
      let entries: string[] = [];
      try {
        entries = readdirSync(folder);
      } catch {
        // No such scope folder at this level.
      }
      for (const e of entries) {
        if (!e.startsWith(stem) || e === stem) continue;
        try {
          const pkg = JSON.parse(readFileSync(join(folder, e, 'package.json'), 'utf8')) as { os?: unknown; cpu?: unknown };
          if (pkg.os === undefined && pkg.cpu === undefined) names.add(e.slice(stem.length));
        } catch {
          // Not a package.
        }
      }
      if (dirname(dir) === dir) break;
    }
  }
  return [...names];
}

export interface ResolvedProviders {
  /** Ready EPs in priority order. */
  providers: ExecutionProvider[];
  /** EPs that were asked for but could not serve, with why. */
  skipped: Array<{ name: string; reason: string }>;
}

function isInstance(c: ExecutionProviderConfig): c is ExecutionProvider {
  return typeof c === 'object' && c !== null && ('kernels' in c || 'getCapability' in c || 'init' in c) && !('create' in c);
}

/** Renames onnxruntime's option names to the EP's and drops the ones it does not act on (noting why). */
function providerOptions(factory: ExecutionProviderFactory, given: Record<string, unknown>, note: (msg: string) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    const inert = factory.inertOptions?.[key];
    if (inert !== undefined) {
      note(`${factory.name} EP: option ${key} is accepted but has no effect: ${inert}`);
      continue;
    }
    const alias = factory.optionAliases?.[key];
    if (alias === undefined) {
      out[key] = value;
      continue;
    }
    const { name, convert } = typeof alias === 'string' ? { name: alias, convert: undefined } : alias;
    if (name in out || name in given) throw new SwitchyardError('INVALID_ARGUMENT', `${factory.name} EP: both ${key} and ${name} are given; they are the same option`);
    out[name] = convert ? convert(value) : value;
  }
  return out;
}

async function createProvider(config: ExecutionProviderConfig, note: (msg: string) => void): Promise<ExecutionProvider> {
  if (typeof config === 'object' && isInstance(config)) {
    if (typeof config.name !== 'string' || !config.name) throw new SwitchyardError('INVALID_ARGUMENT', 'an execution provider instance needs a name');
    await config.init?.();
    return config;
  }
  const { name, ...options } = typeof config === 'string' ? { name: config } : config;
  if (typeof name !== 'string' || !name) {
    throw new SwitchyardError('INVALID_ARGUMENT', `executionProviders entries are names, {name, ...options} objects or EP instances; got ${JSON.stringify(config)}`);
  }
  const factory = factories.get(name) ?? (await importProviderPackage(name));
  const ep = await factory.create(providerOptions(factory, options, note));
  await ep.init?.();
  return ep;
}

/** The EP name an `executionProviders` entry asks for. */
export function providerConfigName(c: ExecutionProviderConfig): string {
  if (typeof c === 'string') return c;
  return String((c as { name?: unknown }).name ?? '<unnamed>');
}

/**
 * Creates and initializes the EPs in order. CPU is appended last unless `disableCpuFallback`.
 * An EP that fails to start is skipped with its reason; a name nothing provides and options an EP
 * refuses are errors (INVALID_ARGUMENT) for the EPs the caller listed. Throws one error listing every
 * reason when no EP can serve. `note` receives remarks such as options that have no effect.
 */
export async function resolveExecutionProviders(
  configs: readonly ExecutionProviderConfig[] | undefined,
  options: { disableCpuFallback?: boolean; note?: (msg: string) => void } = {},
): Promise<ResolvedProviders> {
  const note = options.note ?? (() => {});
  const listed = new Set((configs ?? []).map(providerConfigName));
  const list: ExecutionProviderConfig[] = configs && configs.length > 0 ? [...configs] : registeredExecutionProviders().map((f) => f.name);
  if (!options.disableCpuFallback && !list.some((c) => providerConfigName(c) === 'cpu')) list.push('cpu');
  const providers: ExecutionProvider[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const config of list) {
    const name = providerConfigName(config);
    if (seen.has(name)) continue;
    seen.add(name);
    try {
      providers.push(await createProvider(config, note));
    } catch (err) {
      // A mistake in what the caller wrote is theirs to fix, not a device that happens to be missing.
      if (listed.has(name) && err instanceof SwitchyardError && err.code === 'INVALID_ARGUMENT') throw err;
      skipped.push({ name, reason: (err as Error).message });
    }
  }
  if (providers.length === 0) {
    const reasons = skipped.map((s) => `  - ${s.name}: ${s.reason}`).join('\n');
    throw new SwitchyardError('NO_PROVIDER', `no execution provider can serve this session:\n${reasons || '  (none were requested)'}`);
  }
  return { providers, skipped };
}
