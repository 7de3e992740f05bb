export { BaseClient, Dompet, UserSession } from "./client.js";
export type {
  ClientOptions,
  DompetOptions,
  Init,
  ItemOf,
  PagedPath,
  PageOf,
  Pagination,
  RequestOptions,
  ResultOf,
  SessionOptions,
  Tokens,
} from "./client.js";
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  DompetError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  UnprocessableEntityError,
} from "./errors.js";
export type { FieldError } from "./errors.js";
export { API_VERSION, IDEMPOTENT_POSTS, WEBHOOK_API_VERSION } from "./generated/operations.js";
export type { components, operations, paths, webhooks } from "./generated/schema.js";
export { RequestSigner, canonicalQuery, rfc3986, stringToSign, timestampNow } from "./signing.js";
export type { RetryOptions } from "./transport.js";
export { WebhookVerificationError, verifyWebhook } from "./webhooks.js";
export type {
  HeaderSource,
  VerifyOptions,
  WebhookEvent,
  WebhookFailure,
  WebhookKeys,
  WebhookPublicKeys,
} from "./webhooks.js";
export { loadPolicyKey, policyPublicKey, signKeyRotation, signPolicy } from "./policies.js";
export type { PolicyDocument, SignedKeyRotation, SignedPolicy } from "./policies.js";
