/**
 * `new Dompet({ baseUrl, appId, appSecret })` signs Family S requests; `new Dompet({ baseUrl, clientSecret })` logs
 * users in (Family W) and returns a UserSession that refreshes its own token. Both have the typed methods
 * `GET/POST/PUT/DELETE(path, init)` (paths, parameters and bodies checked against the OpenAPI document) that return the
 * envelope's `data` or throw a DompetError, `request()` for anything untyped, and `pages()`/`items()` over lists.
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";

import { AuthenticationError, DompetError } from "./errors.js";
import type { paths } from "./generated/schema.js";
import { RequestSigner } from "./signing.js";
import { type Authenticator, type Outgoing, type RetryOptions, Transport } from "./transport.js";

type Method = "get" | "put" | "post" | "delete";
type Media = `${string}/${string}`;
type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: infer O } ? ([O] extends [never | undefined] ? never : P) : never;
}[keyof paths];
type RequiredKeysOfHelper<T> = { [K in keyof T]: {} extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> = RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** Options of a typed call: `params` (path, query, header), `body`, `headers`, as openapi-fetch takes them. */
export type Init<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** The `data` of a route's 200 envelope. */
export type ResultOf<P extends keyof paths, M extends Method, I = {}> =
  NonNullable<FetchResponse<paths[P][M] & Record<string | number, unknown>, I, Media>["data"]> extends infer E
    ? E extends { data?: infer D }
      ? NonNullable<D>
      : E
    : never;

type Typed<M extends Method> = <P extends PathsWith<M>, I extends Init<P, M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<ResultOf<P, M, I>>;

/** GET routes that answer a page: `{data: [...], pagination}` (not a free-form object such as /openapi.json). */
export type PagedPath = {
  [P in PathsWith<"get">]: string extends keyof ResultOf<P, "get">
    ? never
    : ResultOf<P, "get"> extends { data: unknown[]; pagination: unknown }
      ? P
      : never;
}[PathsWith<"get">];
export type PageOf<P extends PagedPath> = ResultOf<P, "get">;
export type ItemOf<P extends PagedPath> = PageOf<P> extends { data: (infer T)[] } ? T : never;

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
}

export interface ClientOptions extends RetryOptions {
  /** The service's URL, e.g. http://127.0.0.1:8000 or https://api.example.com/prod (a stage prefix is not signed). */
  baseUrl: string;
  /** Time for one attempt, in ms (default 60 000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
}

export interface RequestOptions {
  /** JSON body. */
  json?: unknown;
  /** Query parameters (put in canonical form before signing). */
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

/** What every client (app or user session) can do. */
export abstract class BaseClient {
  /** The typed openapi-fetch client underneath (`{data, error, response}` style), with the same authentication. */
  readonly api: Client<paths, Media>;
  protected readonly transport: Transport;

  protected constructor(options: ClientOptions, auth: Authenticator) {
    this.transport = new Transport(options, auth);
    this.api = createClient<paths, Media>({
      baseUrl: this.transport.baseUrl.href.replace(/\/$/, ""),
      fetch: this.transport.fetch,
    });
  }

  readonly GET: Typed<"get"> = (path, ...init) => this.typed("GET", path, init[0]);
  readonly POST: Typed<"post"> = (path, ...init) => this.typed("POST", path, init[0]);
  readonly PUT: Typed<"put"> = (path, ...init) => this.typed("PUT", path, init[0]);
  readonly DELETE: Typed<"delete"> = (path, ...init) => this.typed("DELETE", path, init[0]);

  private async typed<R>(method: string, path: string, init: unknown): Promise<R> {
    // The transport throws a DompetError for anything but a 2xx, so `data` is the 200 envelope here.
    const request = this.api.request as unknown as (m: string, p: string, i?: unknown) => Promise<{ data?: unknown }>;
    const { data } = await request(method.toLowerCase(), path, init);
    return (data as { data?: unknown } | undefined)?.data as R;
  }

  /** Any route, typed or not: `request("POST", "/api/v1/...", { json })` returns the envelope's `data`. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const query = Object.entries(options.query ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
      .join("&");
    const target = query ? `${path}${path.includes("?") ? "&" : "?"}${query}` : path;
    const response = await this.transport.call(method, target, options.json, { headers: options.headers ?? {} });
    const text = await response.text();
    return (text ? (JSON.parse(text) as { data?: unknown }).data : undefined) as T;
  }

  /**
   * The pages of a list, one request each, from `page` (default 1) while `pagination.hasNext`:
   * `for await (const page of d.pages("/api/v1/userOp", { params: { query: { limit: 10 } } }))`.
   */
  async *pages<P extends PagedPath>(path: P, ...init: InitParam<Init<P, "get">>): AsyncGenerator<PageOf<P>> {
    const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let page = Number(first.params?.query?.["page"] ?? 1);
    for (;;) {
      const options = { ...first, params: { ...first.params, query: { ...first.params?.query, page } } };
      const result: PageOf<P> = await this.typed("GET", path, options);
      yield result;
      if (!(result as { pagination: Pagination }).pagination.hasNext) return;
      page += 1;
    }
  }

  /** Every item of a list, fetching pages as they are needed. */
  async *items<P extends PagedPath>(path: P, ...init: InitParam<Init<P, "get">>): AsyncGenerator<ItemOf<P>> {
    for await (const page of this.pages(path, ...init)) {
      for (const item of (page as { data: ItemOf<P>[] }).data) yield item;
    }
  }
}

export interface DompetOptions extends ClientOptions {
  /** Family S: the app id and app secret (signed server-to-server calls). */
  appId?: string;
  appSecret?: string;
  /** Family W: the client secret (logs users in; never ship it to a browser). */
  clientSecret?: string;
}

/** A user's tokens, as login, refresh and wallet creation return them. */
export interface Tokens {
  /** The access token (no wallet yet) or wallet token. */
  token: string;
  refreshToken: string;
  /** When `token` expires (from its `exp`), ms since the epoch. */
  expiresAt: number;
}

export interface SessionOptions {
  /** Called whenever the session's tokens change (login, refresh, wallet creation): persist them if you need to. */
  onTokens?: (tokens: Tokens) => void;
  /** Refresh this long before the token expires (default 60 s). */
  refreshMarginMs?: number;
}

function expiryOf(jwt: string): number {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: unknown };
    return typeof payload.exp === "number" ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

function tokensFrom(data: unknown): Tokens | undefined {
  if (!data || typeof data !== "object") return undefined;
  const d = data as { accessToken?: unknown; walletToken?: unknown; refreshToken?: unknown };
  const token = typeof d.walletToken === "string" ? d.walletToken : d.accessToken;
  if (typeof token !== "string" || typeof d.refreshToken !== "string") return undefined;
  return { token, refreshToken: d.refreshToken, expiresAt: expiryOf(token) };
}

export class Dompet extends BaseClient {
  private readonly options: DompetOptions;

  constructor(options: DompetOptions) {
    if (!options.clientSecret && !(options.appId && options.appSecret)) {
      throw new TypeError("Dompet needs appId and appSecret (Family S), or clientSecret (Family W), or both");
    }
    const signer = options.appId && options.appSecret ? new RequestSigner(options.appId, options.appSecret) : undefined;
    const clientSecret = options.clientSecret;
    super(options, {
      headers: async (request: Outgoing) => {
        if (signer) return signer.headers(request.method, request.pathWithQuery, request.body);
        return clientSecret ? { "x-client-secret": clientSecret } : {};
      },
    });
    this.options = options;
  }

  private get clientSecret(): string {
    if (!this.options.clientSecret) throw new TypeError("login needs the clientSecret option (Family W)");
    return this.options.clientSecret;
  }

  /**
   * Logs a user in (`POST /api/v1/auth/login`, from your backend: it vouches for `subId`) and returns their
   * session: an access token until they have a wallet, a wallet token after; refreshed before it expires.
   */
  async login(subId: string, options: SessionOptions = {}): Promise<UserSession> {
    const response = await this.transport.call(
      "POST",
      "/api/v1/auth/login",
      { subId },
      { headers: { "x-client-secret": this.clientSecret }, retry: false },
    );
    const tokens = tokensFrom(((await response.json()) as { data?: unknown }).data);
    if (!tokens) throw new TypeError("login answered no tokens");
    return new UserSession(this.options, this.clientSecret, tokens, options);
  }

  /** A session from tokens you kept (see SessionOptions.onTokens). */
  resume(tokens: Pick<Tokens, "token" | "refreshToken">, options: SessionOptions = {}): UserSession {
    return new UserSession(this.options, this.clientSecret, { ...tokens, expiresAt: expiryOf(tokens.token) }, options);
  }
}

/** A logged-in user (Family W): Bearer token + client secret on every request, refreshed when due. */
export class UserSession extends BaseClient {
  private current: Tokens;
  private refreshing: Promise<void> | undefined;
  private readonly refresher: Transport;

  constructor(client: ClientOptions, clientSecret: string, tokens: Tokens, options: SessionOptions = {}) {
    const margin = options.refreshMarginMs ?? 60_000;
    let self: UserSession | undefined;
    super(client, {
      headers: async () => {
        const session = self as UserSession;
        if (session.current.expiresAt && session.current.expiresAt - Date.now() < margin) await session.refresh();
        return { Authorization: `Bearer ${session.current.token}`, "x-client-secret": clientSecret };
      },
      recover: async (_status, code) => {
        if (code !== "TOKEN_EXPIRED") return false;
        await (self as UserSession).refresh();
        return true;
      },
      observe: (data) => {
        const tokens = tokensFrom(data);
        if (tokens) (self as UserSession).adopt(tokens);
      },
    });
    self = this;
    this.current = tokens;
    this.onTokens = options.onTokens;
    // Refresh goes out on its own transport (no bearer token). The service answers the same pair again for a
    // refresh token presented twice within its reuse interval (20 s), so a refresh may be retried.
    this.refresher = new Transport(client, {
      headers: async () => ({ "x-client-secret": clientSecret }),
    });
  }

  private readonly onTokens: ((tokens: Tokens) => void) | undefined;

  get tokens(): Readonly<Tokens> {
    return this.current;
  }

  private adopt(tokens: Tokens): void {
    this.current = tokens;
    this.onTokens?.(tokens);
  }

  /** Exchanges the refresh token for a new pair now (concurrent callers share one refresh). */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const response = await this.refresher.call(
          "POST",
          "/api/v1/auth/refresh",
          { refreshToken: this.current.refreshToken },
          { retry: true },
        );
        const tokens = tokensFrom(((await response.json()) as { data?: unknown }).data);
        if (!tokens) {
          throw new AuthenticationError("refresh answered no tokens", {
            status: 401,
            code: "INVALID_REFRESH_TOKEN",
            method: "POST",
            path: "/api/v1/auth/refresh",
          });
        }
        this.adopt(tokens);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}

export { DompetError };
