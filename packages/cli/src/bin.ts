#!/usr/bin/env node
/** The `switchyard` command. */
import { parseArgs } from 'node:util';
import { SwitchyardError } from '@switchyard/core';
import { registerBundledProviders } from './providers.js';
import { loadProviderModules } from './load-ep.js';
import { runCommand } from './commands/run.js';
import { inspectCommand } from './commands/inspect.js';
import { conformanceCommand } from './commands/conformance.js';
import { validateCommand, parsePrecision } from './commands/validate.js';
import { benchCommand } from './commands/bench.js';
import { explainCommand } from './commands/explain.js';
import { parseFreeDims, parseLevel, parsePartitioning, type SessionArgs } from './session-args.js';
import { serveCommand } from './commands/serve.js';
import { CliError } from './cli-error.js';

const USAGE = `Usage:
  switchyard run MODEL [--input name=file.npy|random]... [-n N] [--json]
  switchyard inspect MODEL [--json] [--html report.html] [--input name=file.npy]...   (inputs bind symbolic dims for the memory plan)
  switchyard explain MODEL --node NAME [--json]
  switchyard validate MODEL [--reference EPS] [--reference-level L] [--input name=file.npy]... [--precision fp32|fp16|bf16|int8|fp64|exact] [--atol X] [--rtol X] [--json]
  switchyard bench MODEL [--compare EPS] [--batch 1,8,32] [--iterations N] [--warmup N] [--input name=file.npy]... [--json]
  switchyard conformance [--expectations FILE] [--filter REGEX] [--update] [--root DIR] [--verbose]
  switchyard serve --repository DIR [--port 8000] [--host 127.0.0.1] [--max-body-mb 64]

Every command also takes:
  --ep EPS                EPs in priority order, each with options: rocm:enableHipGraph=1,deviceId=0,cpu
                          (cpu is appended when missing; repeat --ep or separate EPs by commas;
                          for serve they apply to models whose config.json names none, docs/serving.md)
  --ep-options FILE       EP options as JSON: {"rocm": {"deviceId": 1}} or ["rocm", {"name": "cpu"}]
  --load-ep MODULE        registers the executionProviderFactory a JS module exports (repeatable)
  --level disabled|basic|extended|all   graph optimization level (default all)
  --threads N             intra-op threads (default: every core)
  --partitioning first-capable|cost   first-capable (default): each node on the first EP that can run it;
                          cost: cheap device islands whose copies cost more than they save run on the host
  --free-dim NAME=SIZE    fixes a symbolic dimension (freeDimensionOverrides; repeatable)
  --save-optimized FILE   writes the optimized model as ONNX
  --profile FILE          writes a Chrome trace (chrome://tracing, Perfetto) of the runs;
                          inspect and explain run the model once for it`;

function intArg(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} takes a non-negative integer, got '${v}'`);
  return n;
}

function floatArg(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new CliError(`${name} takes a non-negative number, got '${v}'`);
  return n;
}

function batchList(v: string | undefined): number[] | undefined {
  if (v === undefined) return undefined;
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((b) => !Number.isInteger(b) || b < 1)) throw new CliError(`--batch takes positive integers separated by commas, got '${v}'`);
  if (list.some((b, i) => i > 0 && b <= list[i - 1])) throw new CliError(`--batch sizes must be ascending, got '${v}'`);
  return list;
}

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
      ep: { type: 'string', multiple: true },
      'ep-options': { type: 'string' },
      'load-ep': { type: 'string', multiple: true },
      input: { type: 'string', multiple: true },
      n: { type: 'string', short: 'n' },
      threads: { type: 'string' },
      level: { type: 'string' },
      'save-optimized': { type: 'string' },
      partitioning: { type: 'string' },
      'free-dim': { type: 'string', multiple: true },
      profile: { type: 'string' },
      json: { type: 'boolean', default: false },
      node: { type: 'string' },
      html: { type: 'string' },
      reference: { type: 'string', multiple: true },
      'reference-level': { type: 'string' },
      precision: { type: 'string' },
      atol: { type: 'string' },
      rtol: { type: 'string' },
      compare: { type: 'string', multiple: true },
      batch: { type: 'string' },
      iterations: { type: 'string' },
      warmup: { type: 'string' },
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
  await loadProviderModules(values['load-ep'] ?? []);
  const session: SessionArgs = {
    ep: values.ep,
    epOptions: values['ep-options'],
    level: parseLevel(values.level),
    threads: intArg(values.threads, '--threads'),
    saveOptimized: values['save-optimized'],
    profile: values.profile,
    partitioning: parsePartitioning(values.partitioning),
    freeDims: parseFreeDims(values['free-dim']),
  };
  const model = positionals[0];
  const needModel = () => {
    if (!model) throw new CliError(`${command} needs a MODEL path`);
    return model;
  };
  const inputs = values.input ?? [];
  const json = values.json!;
  switch (command) {
    case 'run':
      await runCommand({ ...session, model: needModel(), inputs, iterations: intArg(values.n, '-n') ?? 10, json });
      return 0;
    case 'inspect':
      await inspectCommand({ ...session, model: needModel(), inputs, json, html: values.html });
      return 0;
    case 'explain':
      if (!values.node) throw new CliError('explain needs --node NAME');
      await explainCommand({ ...session, model: needModel(), node: values.node, inputs, json });
      return 0;
    case 'validate':
      return validateCommand({
        ...session,
        model: needModel(),
        reference: values.reference,
        referenceLevel: parseLevel(values['reference-level'], '--reference-level'),
        inputs,
        precision: parsePrecision(values.precision),
        atol: floatArg(values.atol, '--atol'),
        rtol: floatArg(values.rtol, '--rtol'),
        json,
      });
    case 'bench':
      await benchCommand({
        ...session,
        model: needModel(),
        compare: values.compare,
        batches: batchList(values.batch),
        iterations: intArg(values.iterations, '--iterations') ?? 20,
        warmup: intArg(values.warmup, '--warmup') ?? 3,
        inputs,
        json,
      });
      return 0;
    case 'conformance':
      if (session.profile || session.saveOptimized) throw new CliError('conformance runs a thousand models: --profile and --save-optimized do not apply');
      return conformanceCommand({ ep: values.ep, epOptions: values['ep-options'], expectations: values.expectations, filter: values.filter, update: values.update!, root: values.root, verbose: values.verbose! });
    case 'serve':
      if (session.profile || session.saveOptimized) throw new CliError('serve loads every model of a repository: --profile and --save-optimized do not apply');
      return serveCommand({ repository: values.repository, port: intArg(values.port, '--port'), host: values.host, ep: values.ep, epOptions: values['ep-options'], maxBodyMb: intArg(values['max-body-mb'], '--max-body-mb') });
    default:
      throw new CliError(`unknown command '${command}'\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof CliError || err instanceof SwitchyardError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) {
      process.stderr.write(`switchyard: ${(err as Error).message}\n`);
      process.exit(2);
    }
    process.stderr.write(`switchyard: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
