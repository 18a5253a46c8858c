/**
 * Resolving `executionProviders` into ready EP instances: by name from the registry (or by importing
 * `@switchyard/ep-<name>` on first use), from option objects, or instances as given. Init is lazy and
 * async; an EP that fails is remembered with its reason and skipped.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider, ExecutionProviderConfig } from './execution-provider.js';

export interface ExecutionProviderFactory {
  /** The name users write in `executionProviders`. */
  name: string;
  /** Builds an EP from the user's options. May throw: the EP is then skipped with that reason. */
  create(options: Record<string, unknown>): ExecutionProvider | Promise<ExecutionProvider>;
  /** Order among registered EPs when the user names none (higher first). CPU is always last. */
  priority?: number;
  /**
   * The kind of value each option takes, so text front ends (the CLI's `--ep rocm:deviceId=1`) can type
   * what they read. Options of other shapes are `'json'`. `create` still validates the values.
   */
  optionTypes?: Readonly<Record<string, ExecutionProviderOptionType>>;
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
  const tryModule = async (load: () => Promise<EpModule>, how: string): Promise<ExecutionProviderFactory | undefined> => {
    try {
      const mod = await load();
      if (mod.executionProviderFactory) return mod.executionProviderFactory;
      attempts.push(`${how}: loaded but exports no executionProviderFactory`);
    } catch (err) {
      attempts.push(`${how}: ${(err as Error).message.split('\n')[0]}`);
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
    throw new SwitchyardError(
      'NO_PROVIDER',
      `execution provider '${name}' is not registered and ${pkg} could not be loaded (${attempts.join('; ')}); install it with \`npm install ${pkg}\``,
    );
  }
  registerExecutionProvider(f);
  return f;
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

async function createProvider(config: ExecutionProviderConfig): Promise<ExecutionProvider> {
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
  const ep = await factory.create(options);
  await ep.init?.();
  return ep;
}

function configName(c: ExecutionProviderConfig): string {
  if (typeof c === 'string') return c;
  return String((c as { name?: unknown }).name ?? '<unnamed>');
}

/**
 * Creates and initializes the EPs in order. CPU is appended last unless `disableCpuFallback`.
 * Throws one error listing every reason when no EP can serve.
 */
export async function resolveExecutionProviders(
  configs: readonly ExecutionProviderConfig[] | undefined,
  options: { disableCpuFallback?: boolean } = {},
): Promise<ResolvedProviders> {
  const list: ExecutionProviderConfig[] = configs && configs.length > 0 ? [...configs] : registeredExecutionProviders().map((f) => f.name);
  if (!options.disableCpuFallback && !list.some((c) => configName(c) === 'cpu')) list.push('cpu');
  const providers: ExecutionProvider[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const config of list) {
    const name = configName(config);
    if (seen.has(name)) continue;
    seen.add(name);
    try {
      providers.push(await createProvider(config));
    } catch (err) {
      skipped.push({ name, reason: (err as Error).message });
    }
  }
  if (providers.length === 0) {
    const reasons = skipped.map((s) => `  - ${s.name}: ${s.reason}`).join('\n');
    throw new SwitchyardError('NO_PROVIDER', `no execution provider can serve this session:\n${reasons || '  (none were requested)'}`);
  }
  return { providers, skipped };
}
