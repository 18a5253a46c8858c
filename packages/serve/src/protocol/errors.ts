/**
 * Errors a client sees. The protocol answers every failure with `{"error": "<message>"}`; the status
 * code says whose fault it was (4xx the request's, 503 the server's capacity, 500 the run's).
 */
export class ProtocolError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ProtocolError';
    this.status = status;
  }
}

export const badRequest = (message: string): ProtocolError => new ProtocolError(400, message);
export const notFound = (message: string): ProtocolError => new ProtocolError(404, message);
export const unavailable = (message: string): ProtocolError => new ProtocolError(503, message);
