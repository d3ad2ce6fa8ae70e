import { ErrorResponseSchema } from '@medshare/contracts';

/** The statuses a route may document as refusals; each is answered with the error envelope. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504;

/** OpenAPI security of a route behind the session: the bearer token. */
const BEARER = [{ bearer: [] }];

/** The error envelope under each of `statuses`. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]): Record<S, typeof ErrorResponseSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorResponseSchema])) as Record<S, typeof ErrorResponseSchema>;
}

/**
 * A module's route-schema preamble: its OpenAPI tag, the bearer security for routes behind the session,
 * and the error envelope under each refusal a route documents. The route's own schema comes last, so
 * it may name another tag. `docs.signedIn([400, 401], { summary, body, response: { 200: … } })`.
 */
export function routeDocs(tag: string) {
  const build =
    (security: typeof BEARER | undefined) =>
    <S extends ErrorStatus, T extends { response: object }>(errors: S[], schema: T) => ({
      tags: [tag],
      ...(security ? { security } : {}),
      ...schema,
      response: { ...schema.response, ...errorResponses(...errors) },
    });
  return { signedIn: build(BEARER), open: build(undefined) };
}
