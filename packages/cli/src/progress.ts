/**
 * Progress of long runs on stderr (stdout stays the result): silent for the first second, then at most
 * one update a second — rewritten in place on a terminal, one line each otherwise.
 */
export class Progress {
  readonly #started = performance.now();
  #last = 0;
  #shown = false;
  readonly #tty = process.stderr.isTTY === true;

  constructor(readonly enabled: boolean) {}

  update(message: string): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.#started < 1000 || now - this.#last < 1000) return;
    this.#last = now;
    this.#shown = true;
    const line = `switchyard: ${message} (${((now - this.#started) / 1000).toFixed(0)} s)`;
    process.stderr.write(this.#tty ? `\r\x1b[K${line}` : `${line}\n`);
  }

  done(): void {
    if (this.#shown && this.#tty) process.stderr.write('\r\x1b[K');
  }
}
