/** A scripted fetch: records what the client sends and answers from a list of responders. */
export interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Responder = (sent: Sent) => Response | Promise<Response>;

export function envelope(data: unknown, status = 200, message = "ok"): Response {
  return new Response(JSON.stringify({ status, message, data }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

export function failure(status: number, code: string, extra: Record<string, unknown> = {}): Response {
  return envelope({ code, ...extra }, status, `failed with ${code}`);
}

export function scripted(...responders: Responder[]): { fetch: typeof globalThis.fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const record: Sent = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: await request.text(),
    };
    sent.push(record);
    const next = responders.shift();
    if (!next) throw new Error(`unexpected request ${record.method} ${record.url.pathname}`);
    return next(record);
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

/** An unsigned JWT whose only meaningful claim is `exp` (the client reads it to know when to refresh). */
export function jwt(expSeconds: number, label = "t"): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "EdDSA" })}.${part({ exp: expSeconds, jti: label })}.c2ln`;
}

export const noSleep = { sleep: async () => {} };
