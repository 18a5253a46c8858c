/**
 * `switchyard serve --repository DIR [--port N] [--host H] [--ep …] [--ep-options FILE]`: the Open Inference Protocol
 * server (@switchyard/serve) until SIGINT/SIGTERM, which let accepted requests finish first.
 */
import { startServer } from '@switchyard/serve';
import { CliError } from '../cli-error.js';
import { resolveEpSpecs } from '../ep-options.js';

export interface ServeArgs {
  repository?: string;
  port?: number;
  host?: string;
  /** `--ep` values (with options, as for every command). */
  ep?: string[];
  /** `--ep-options FILE`. */
  epOptions?: string;
  maxBodyMb?: number;
}

export async function serveCommand(args: ServeArgs): Promise<number> {
  if (!args.repository) throw new CliError('serve needs --repository DIR (a folder of <model>/<version>/model.onnx)');
  if (args.port !== undefined && args.port > 65535) throw new CliError(`--port takes 0-65535, got ${args.port}`);
  const log = (line: string): void => void process.stderr.write(`switchyard serve: ${line}\n`);
  const server = await startServer({
    repository: args.repository,
    port: args.port ?? 8000,
    host: args.host ?? '127.0.0.1',
    defaultExecutionProviders: resolveEpSpecs(args.ep, args.epOptions).configs,
    bodyLimitBytes: args.maxBodyMb === undefined ? undefined : args.maxBodyMb * 1024 * 1024,
    log,
  });
  const models = server.registry.modelNames.map((m) => `${m} (versions ${server.registry.versionsOf(m).join(', ')})`);
  process.stdout.write(`switchyard serve: listening on ${server.url} — ${models.join('; ')}\n`);
  if (!server.registry.ready) log('not ready: some model versions could not be loaded (see above); GET /v2/health/ready answers 400');
  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      log(`${signal}: finishing accepted requests, then exiting`);
      server.close().then(
        () => resolve(0),
        (err: unknown) => {
          log(`shutdown failed: ${(err as Error).message}`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
