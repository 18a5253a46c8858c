/**
 * Leveled log lines on stderr (0 verbose … 4 fatal), filtered like onnxruntime's: by the session's
 * `logSeverityLevel`, else by `env.logLevel`; a run's `RunOptions.logSeverityLevel` overrides both for
 * that run's lines.
 */
import { envSeverity } from '../env.js';

const NAMES = ['VERBOSE', 'INFO', 'WARNING', 'ERROR', 'FATAL'];

export class Logger {
  /** `severity` undefined: follow `env.logLevel`, read at each line. */
  constructor(
    readonly severity: number | undefined,
    readonly id: string,
  ) {}

  /** The severity in force; `override` is a run's own level. */
  effectiveSeverity(override?: number): number {
    return override ?? this.severity ?? envSeverity();
  }

  /** Writes `msg` when `level` is at or above the severity in force. `tag` labels a run's lines. */
  log(level: number, msg: string, override?: number, tag?: string): void {
    if (level < this.effectiveSeverity(override)) return;
    const who = tag ? `${this.id}:${tag}` : this.id;
    process.stderr.write(`[${who}] ${NAMES[level]}: ${msg}\n`);
  }

  verbose(msg: string): void {
    this.log(0, msg);
  }
  info(msg: string): void {
    this.log(1, msg);
  }
  warn(msg: string): void {
    this.log(2, msg);
  }
  error(msg: string): void {
    this.log(3, msg);
  }
}
