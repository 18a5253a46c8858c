/** Minimal leveled logger on stderr (0 verbose … 4 fatal), like onnxruntime's logSeverityLevel. */
const NAMES = ['VERBOSE', 'INFO', 'WARNING', 'ERROR', 'FATAL'];

export class Logger {
  constructor(
    readonly severity: number,
    readonly id: string,
  ) {}

  #log(level: number, msg: string): void {
    if (level >= this.severity) process.stderr.write(`[${this.id}] ${NAMES[level]}: ${msg}\n`);
  }

  verbose(msg: string): void {
    this.#log(0, msg);
  }
  info(msg: string): void {
    this.#log(1, msg);
  }
  warn(msg: string): void {
    this.#log(2, msg);
  }
  error(msg: string): void {
    this.#log(3, msg);
  }
}
