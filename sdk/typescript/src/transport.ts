/**
 * The one place requests go out: authentication headers for every attempt, an Idempotency-Key on every POST,
 * retries with backoff and jitter for requests that may be repeated, and typed errors for non-2xx answers.
 * openapi-fetch hands its Request to `Transport.fetch`; the SDK's own calls use `Transport.send`.
 */
import { randomUUID } from "node:crypto";

import { ConnectionError, errorFromResponse } from "./errors.js";
import { IDEMPOTENT_POSTS } from "./generated/operations.js";
import { type Bytes, canonicalQuery } from "./signing.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3). 0 turns retries off. */
  maxRetries?: number;
  /** First backoff in ms (default 500), doubled per retry, capped at `maxDelayMs` (default 8000); full jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface TransportOptions extends RetryOptions {
  baseUrl: string;
  /** Time for one attempt, in ms (default 60 000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Called for the delay between attempts (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

/** What an authenticator sees of a request: the service path with its canonical query, and the exact body. */
export interface Outgoing {
  method: string;
  pathWithQuery: string;
  body: Bytes;
}

export interface Authenticator {
  /** Headers for one attempt (called again for every retry: Family S signs each attempt afresh). */
  headers(request: Outgoing): Promise<Record<string, string>>;
  /**
   * After a 401 whose code this returns true for, the attempt is made once more with fresh headers
   * (a user session refreshes its token). Never counted as a retry.
   */
  recover?(status: number, code: string): Promise<boolean>;
  /** Sees every successful answer's envelope data (a user session adopts tokens it finds there). */
  observe?(data: unknown): void;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const RETRY_STATUSES = (status: number) => status === 429 || status >= 500;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SendOptions {
  headers?: Record<string, string>;
  /** Overrides the rule (safe methods and POSTs that honour Idempotency-Key are retried). */
  retry?: boolean;
}

export class Transport {
  readonly baseUrl: URL;
  private readonly basePath: string;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    options: TransportOptions,
    private readonly auth: Authenticator,
  ) {
    this.baseUrl = new URL(options.baseUrl.replace(/\/+$/, "") + "/");
    this.basePath = this.baseUrl.pathname.replace(/\/$/, "");
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 8000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.sleep = options.sleep ?? delay;
  }

  /** The service path of a URL: its path without the base URL's path (an API Gateway stage, for one). */
  servicePath(url: URL): string {
    const path = url.pathname;
    return this.basePath && path.startsWith(this.basePath + "/") ? path.slice(this.basePath.length) : path;
  }

  /** For openapi-fetch (`createClient({ fetch })`). */
  readonly fetch = async (request: Request): Promise<Response> => {
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return this.send(request.method, new URL(request.url), body, { headers });
  };

  /** A request by service path (`/api/v1/...`, query included), JSON body or none. */
  async call(method: string, path: string, json?: unknown, options: SendOptions = {}): Promise<Response> {
    const url = new URL(path.replace(/^\//, ""), this.baseUrl);
    const body = json === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(json));
    const headers = { ...(json === undefined ? {} : { "content-type": "application/json" }), ...options.headers };
    return this.send(method, url, body, { ...options, headers });
  }

  async send(method: string, url: URL, body: Bytes, options: SendOptions = {}): Promise<Response> {
    method = method.toUpperCase();
    const target = new URL(url);
    target.search = canonicalQuery(url.search);
    target.hash = "";
    const path = this.servicePath(target);
    const pathWithQuery = target.search ? `${path}${target.search}` : path;
    const headers = new Headers(options.headers);
    if (method === "POST" && !headers.has("idempotency-key")) headers.set("Idempotency-Key", randomUUID());
    const retryable = options.retry ?? (SAFE.has(method) || (method === "POST" && IDEMPOTENT_POSTS.has(path)));
    const attempts = retryable ? this.maxRetries + 1 : 1;
    let recovered = false;

    for (let attempt = 1; ; attempt++) {
      const sent = new Headers(headers);
      for (const [name, value] of Object.entries(await this.auth.headers({ method, pathWithQuery, body }))) {
        sent.set(name, value);
      }
      let response: Response;
      try {
        response = await this.fetchImpl(target, {
          method,
          headers: sent,
          body: body.length ? body : undefined,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (cause) {
        if (attempt < attempts) {
          await this.sleep(this.backoff(attempt));
          continue;
        }
        const timeout = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
        const code = timeout ? "TIMEOUT" : "CONNECTION_ERROR";
        throw new ConnectionError(
          `${method} ${path}: ${code}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { status: 0, code, method, path },
          { cause },
        );
      }
      if (response.ok) {
        return this.observed(response);
      }
      const text = await response.text();
      const error = errorFromResponse(method, path, response.status, text);
      if (response.status === 401 && !recovered && this.auth.recover && (await this.auth.recover(401, error.code))) {
        recovered = true;
        attempt--;
        continue;
      }
      if (RETRY_STATUSES(response.status) && attempt < attempts) {
        await this.sleep(this.backoff(attempt, response.headers.get("retry-after")));
        continue;
      }
      throw error;
    }
  }

  private async observed(response: Response): Promise<Response> {
    if (!this.auth.observe || !(response.headers.get("content-type") ?? "").includes("json")) return response;
    const text = await response.text();
    try {
      this.auth.observe((JSON.parse(text) as { data?: unknown }).data);
    } catch {
      // not JSON after all: nothing to observe
    }
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** Full jitter over an exponential ceiling; a Retry-After (seconds) is a floor. */
  backoff(attempt: number, retryAfter?: string | null): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    const jittered = Math.random() * ceiling;
    const floor = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
    return Math.min(Math.max(jittered, floor), Math.max(this.maxDelayMs, floor));
  }
}
