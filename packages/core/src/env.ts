/**
 * `env`: process-wide settings, shaped like onnxruntime-node's `env` (`logLevel`, `versions`), so code
 * that sets `ort.env.logLevel` works after a change of import.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwitchyardError } from './errors.js';

/** Log levels by name, as onnxruntime's `env.logLevel` names them; their index is the severity (0 verbose … 4 fatal). */
export const LOG_LEVELS = ['verbose', 'info', 'warning', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Env {
  /**
   * Severity below which log lines are dropped, for sessions created without `logSeverityLevel`
   * (read at each line, so a change applies to existing sessions too). Default `'warning'`.
   */
  logLevel: LogLevel;
  /** Versions of the Switchyard packages in use: `core` (this package). */
  readonly versions: { readonly core: string };
}

/** The version in core's package.json, found by walking up from this module (src/ in tests, dist/ when published). */
function coreVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@switchyard/core' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

class SwitchyardEnv implements Env {
  #logLevel: LogLevel = 'warning';
  #versions: { readonly core: string } | undefined;

  get logLevel(): LogLevel {
    return this.#logLevel;
  }

  set logLevel(value: LogLevel) {
    if (!LOG_LEVELS.includes(value)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `env.logLevel must be one of ${LOG_LEVELS.map((l) => `'${l}'`).join(', ')}, got ${JSON.stringify(value)}`);
    }
    this.#logLevel = value;
  }

  get versions(): { readonly core: string } {
    this.#versions ??= Object.freeze({ core: coreVersion() });
    return this.#versions;
  }
}

export const env: Env = new SwitchyardEnv();

/** `env.logLevel` as a severity number (0 verbose … 4 fatal). */
export function envSeverity(): number {
  return LOG_LEVELS.indexOf(env.logLevel);
}
