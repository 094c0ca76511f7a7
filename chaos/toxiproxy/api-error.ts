/** An error the HTTP API reports as `{"error": message, "status": status}`. */
export class ApiError extends Error {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

// Messages are the real server's, so logs and client errors read the same with either server.
export const apiErrors = {
  badRequestBody: (detail: string) => new ApiError(`bad request body: ${detail}`, 400),
  missingField: (field: string) => new ApiError(`missing required field: ${field}`, 400),
  proxyNotFound: () => new ApiError('proxy not found', 404),
  proxyAlreadyExists: () => new ApiError('proxy already exists', 409),
  invalidStream: () => new ApiError('stream was invalid, can be either upstream or downstream', 400),
  invalidToxicType: () => new ApiError('invalid toxic type', 400),
  toxicAlreadyExists: () => new ApiError('toxic already exists', 409),
  toxicNotFound: () => new ApiError('toxic not found', 404),
  notFound: () => new ApiError('not found', 404),
  methodNotAllowed: () => new ApiError('method not allowed', 405),
  browserForbidden: () => new ApiError('User agent not allowed', 403),
};

/** Any failure as an ApiError; errors without a status are the server's own (500). */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(error instanceof Error ? error.message : String(error), 500);
}
