// Compile-time checks: paths, parameters, bodies and results are typed from the OpenAPI document. `tsc` fails on
// any line below that stops type-checking (and on an @ts-expect-error that no longer finds an error).
import { test } from "node:test";

import type { Dompet, PagedPath, UserSession, paths } from "../src/index.js";

// Every GET route with a `page` query parameter answers a page, and so is iterable with pages()/items().
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type QueryOf<P extends keyof paths> = paths[P]["get"] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type WithPageQuery = {
  [P in keyof paths]: [QueryOf<P>] extends [never] ? never : "page" extends keyof QueryOf<P> ? P : never;
}[keyof paths];
export const everyListIsPaged: Equal<WithPageQuery, PagedPath> = true;
export const someListsExist: "/api/v1/userOp" extends PagedPath ? true : false = true;

export async function typed(d: Dompet, user: UserSession): Promise<void> {
  const networks = await d.GET("/api/v1/networks");
  networks.networks.map((n) => n.chainId satisfies number);
  const page = await d.GET("/api/v1/userOp", { params: { query: { limit: 5 } } });
  page.pagination.hasNext satisfies boolean;
  const account = await d.POST("/api/v1/smart-account", { body: { owner: { id: "0x", provider: "wallet" } } });
  account.accounts.map((a) => a.aaAddress satisfies string);
  const sent = await user.POST("/api/v1/wallet/send-coin", {
    body: { network: "local-a", to: "0x", amount: "0.1" },
    params: { header: { "Idempotency-Key": "k" } },
  });
  sent.txReceipt.hash satisfies string;
  for await (const op of d.items("/api/v1/userOp")) op.id satisfies string;
  // @ts-expect-error: no such route
  await d.GET("/api/v1/nope");
  // @ts-expect-error: PUT is not a method of this route
  await d.PUT("/api/v1/networks");
  // @ts-expect-error: the body is required
  await d.POST("/api/v1/smart-account");
  // @ts-expect-error: the path parameter is required
  await d.GET("/api/v1/userOp/{id}");
  // @ts-expect-error: not a list
  d.pages("/api/v1/networks");
}

test("the typed calls compile (see this file)", () => {});
