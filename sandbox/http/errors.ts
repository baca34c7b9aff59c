/** An answer other than success; the server turns it into `{message}` with the status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (msg: string): HttpError => new HttpError(400, msg);
export const unauthorized = (msg: string): HttpError => new HttpError(401, msg);
export const forbidden = (msg: string): HttpError => new HttpError(403, msg);
export const notFound = (msg: string): HttpError => new HttpError(404, msg);
