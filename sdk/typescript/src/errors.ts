/** Typed errors. Every failed call throws a DompetError carrying the HTTP `status` and the envelope's `data.code`. */

/** One entry of `data.errors` (400 VALIDATION_ERROR): the field and what is wrong with it. */
export interface FieldError {
  field?: string;
  message?: string;
  type?: string;
}

export class DompetError extends Error {
  /** HTTP status; 0 when no answer came back (ConnectionError). */
  readonly status: number;
  /** Stable machine-readable code: `data.code` of the error envelope (docs/errors.md). */
  readonly code: string;
  /** The envelope's `data`, whole (e.g. `missing`, `rule`, `requestId`). */
  readonly data: Readonly<Record<string, unknown>>;
  readonly method: string;
  readonly path: string;

  constructor(
    message: string,
    init: { status: number; code: string; data?: Record<string, unknown>; method: string; path: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.data = init.data ?? {};
    this.method = init.method;
    this.path = init.path;
  }

  /** 400 VALIDATION_ERROR's list of bad fields (empty otherwise). */
  get errors(): FieldError[] {
    const errors = this.data["errors"];
    return Array.isArray(errors) ? (errors as FieldError[]) : [];
  }

  /** The service's request id on a 500 (quote it to support). */
  get requestId(): string | undefined {
    const id = this.data["requestId"];
    return typeof id === "string" ? id : undefined;
  }
}

/** 400: the request is malformed (VALIDATION_ERROR names the fields in `errors`). */
export class BadRequestError extends DompetError {}
/** 401: credentials missing, wrong, expired or revoked. */
export class AuthenticationError extends DompetError {}
/** 403: authenticated, but not allowed (e.g. WALLET_TOKEN_REQUIRED, POLICY_DENIED). */
export class PermissionDeniedError extends DompetError {}
/** 404 */
export class NotFoundError extends DompetError {}
/** 409: conflicts with the current state (e.g. WALLET_ALREADY_EXISTS, IDEMPOTENCY_OUTCOME_UNKNOWN). */
export class ConflictError extends DompetError {}
/** 422: well formed, but cannot be done (e.g. INSUFFICIENT_GAS_TANK_BALANCE, USER_OP_EXPIRED). */
export class UnprocessableEntityError extends DompetError {}
/** 429, after the retries ran out. */
export class RateLimitError extends DompetError {}
/** 5xx, after the retries ran out (for requests that may be retried). */
export class ServerError extends DompetError {}
/** No HTTP answer: the connection failed or the attempt timed out (`code` CONNECTION_ERROR or TIMEOUT). */
export class ConnectionError extends DompetError {}

const BY_STATUS: Record<number, typeof DompetError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error for an HTTP answer that is not 2xx, from its body (the `{status, message, data}` envelope). */
export function errorFromResponse(method: string, path: string, status: number, body: string): DompetError {
  let message = `HTTP ${status}`;
  let data: Record<string, unknown> = {};
  try {
    const envelope: unknown = JSON.parse(body);
    if (envelope && typeof envelope === "object") {
      const e = envelope as { message?: unknown; data?: unknown };
      if (typeof e.message === "string") message = e.message;
      if (e.data && typeof e.data === "object") data = e.data as Record<string, unknown>;
    }
  } catch {
    if (body) message = `${message}: ${body.slice(0, 200)}`;
  }
  const code = typeof data["code"] === "string" ? data["code"] : `HTTP_${status}`;
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : DompetError);
  return new Kind(`${method} ${path}: ${status} ${code}: ${message}`, { status, code, data, method, path });
}
