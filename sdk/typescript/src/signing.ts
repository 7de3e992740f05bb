/**
 * Family S request signatures (docs/authentication.md), with WebCrypto:
 *
 *     X-SIGNATURE = hex(HMAC-SHA256(app secret, X-TIMESTAMP + "." + METHOD + "." + path_with_query + "." + raw body))
 *
 * `path_with_query` is the service path (without any API Gateway stage prefix) and the query in canonical form:
 * names in order of first appearance, each name's values together, RFC 3986 percent-encoding.
 */

const encoder = new TextEncoder();

/** Bytes as sent (WebCrypto and fetch take ArrayBuffer-backed views). */
export type Bytes = Uint8Array<ArrayBuffer>;

/** RFC 3986 percent-encoding: only A-Z a-z 0-9 - _ . ~ are left as they are. */
export function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part); // "+" stays a literal plus, as API Gateway reads it
  } catch {
    return part;
  }
}

/** The query (without "?") as the service rebuilds it, which is the form to sign and to send. */
export function canonicalQuery(query: string): string {
  const grouped = new Map<string, string[]>();
  for (const pair of query.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const name = decode(at < 0 ? pair : pair.slice(0, at));
    const value = at < 0 ? "" : decode(pair.slice(at + 1));
    const values = grouped.get(name);
    if (values) values.push(value);
    else grouped.set(name, [value]);
  }
  const out: string[] = [];
  for (const [name, values] of grouped) for (const value of values) out.push(`${rfc3986(name)}=${rfc3986(value)}`);
  return out.join("&");
}

export function stringToSign(timestamp: string, method: string, pathWithQuery: string, body: Bytes): Bytes {
  const head = encoder.encode(`${timestamp}.${method.toUpperCase()}.${pathWithQuery}.`);
  const message = new Uint8Array(head.length + body.length);
  message.set(head, 0);
  message.set(body, head.length);
  return message;
}

let sequence = 0;

/**
 * Now as RFC 3339 with nine fraction digits: milliseconds, then six digits that differ for every request this
 * process signs, so two identical writes signed in the same millisecond are not taken for a replay.
 */
export function timestampNow(now: Date = new Date()): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${now.toISOString().slice(0, -1)}${String(sequence).padStart(6, "0")}Z`;
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Signs Family S requests for one app; the HMAC key is imported into WebCrypto once. */
export class RequestSigner {
  private key: Promise<CryptoKey> | undefined;

  constructor(
    readonly appId: string,
    private readonly appSecret: string,
  ) {}

  async signature(timestamp: string, method: string, pathWithQuery: string, body: Bytes): Promise<string> {
    this.key ??= crypto.subtle.importKey(
      "raw",
      encoder.encode(this.appSecret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return hex(await crypto.subtle.sign("HMAC", await this.key, stringToSign(timestamp, method, pathWithQuery, body)));
  }

  /** The three headers for a request; `pathWithQuery` already canonical (see canonicalQuery). */
  async headers(
    method: string,
    pathWithQuery: string,
    body: Bytes,
    timestamp: string = timestampNow(),
  ): Promise<Record<string, string>> {
    return {
      "X-APP-ID": this.appId,
      "X-TIMESTAMP": timestamp,
      "X-SIGNATURE": await this.signature(timestamp, method, pathWithQuery, body),
    };
  }
}
