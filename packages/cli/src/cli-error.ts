/** A usage error: printed without a stack trace, exit code 2. */
export class CliError extends Error {}
