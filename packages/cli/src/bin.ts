#!/usr/bin/env node
/** The `switchyard` command. */
import { parseArgs } from 'node:util';
import { SwitchyardError } from '@switchyard/core';
import { registerBundledProviders } from './providers.js';
import { runCommand } from './commands/run.js';
import { inspectCommand } from './commands/inspect.js';
import { conformanceCommand } from './commands/conformance.js';
import { serveCommand } from './commands/serve.js';
import { CliError } from './cli-error.js';

const USAGE = `Usage:
  switchyard run MODEL [--ep rocm,migraphx,cpu] [--input name=file.npy|random]... [-n N] [--threads N] [--level disabled|basic|extended|all] [--json]
  switchyard inspect MODEL [--ep rocm,migraphx,cpu] [--json]
  switchyard conformance [--ep cpu] [--expectations FILE] [--filter REGEX] [--update] [--root DIR] [--verbose]
  switchyard serve --repository DIR [--port 8000] [--host 127.0.0.1] [--ep rocm,migraphx,cpu] [--max-body-mb 64]

--ep lists execution providers in priority order; cpu is appended when missing. For serve it applies
to models whose config.json names none (docs/serving.md).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return command ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ep: { type: 'string' },
      input: { type: 'string', multiple: true },
      n: { type: 'string', short: 'n' },
      threads: { type: 'string' },
      level: { type: 'string' },
      json: { type: 'boolean', default: false },
      expectations: { type: 'string' },
      filter: { type: 'string' },
      update: { type: 'boolean', default: false },
      root: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      repository: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'max-body-mb': { type: 'string' },
    },
  });
  registerBundledProviders();
  const intArg = (v: string | undefined, name: string, fallback?: number): number | undefined => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} takes a non-negative integer, got '${v}'`);
    return n;
  };
  const model = positionals[0];
  switch (command) {
    case 'run': {
      if (!model) throw new CliError('run needs a MODEL path');
      const level = values.level as 'disabled' | 'basic' | 'extended' | 'all' | undefined;
      if (level && !['disabled', 'basic', 'extended', 'all'].includes(level)) throw new CliError(`--level takes disabled|basic|extended|all, got '${level}'`);
      await runCommand({ model, ep: values.ep, inputs: values.input ?? [], iterations: intArg(values.n, '-n', 10)!, json: values.json!, threads: intArg(values.threads, '--threads'), level });
      return 0;
    }
    case 'inspect':
      if (!model) throw new CliError('inspect needs a MODEL path');
      await inspectCommand({ model, ep: values.ep, json: values.json! });
      return 0;
    case 'conformance':
      return conformanceCommand({ ep: values.ep, expectations: values.expectations, filter: values.filter, update: values.update!, root: values.root, verbose: values.verbose! });
    case 'serve':
      return serveCommand({ repository: values.repository, port: intArg(values.port, '--port'), host: values.host, ep: values.ep, maxBodyMb: intArg(values['max-body-mb'], '--max-body-mb') });
    default:
      throw new CliError(`unknown command '${command}'\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof CliError || err instanceof SwitchyardError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`switchyard: ${(err as Error).message}\n`);
      process.exit(2);
    }
    process.stderr.write(`switchyard: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
