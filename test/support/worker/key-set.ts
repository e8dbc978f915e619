// Helpers for worker tests against the JWK set stand-in (test/support/node/jwks-server.ts).
import { inject } from 'vitest';
import { importJWK, SignJWT, type JWK } from 'jose';
import { AUTHORIZATION_SERVER, ORIGIN } from './harness';

/** The one `kid` the stand-in's sets publish. */
export const PUBLISHED_KID = 'jwks-test';

/**
 * An RFC 9068 access token for the test origin (10 minutes from the current clock), signed with the
 * stand-in's key under `kid`: a kid other than PUBLISHED_KID is one no set has.
 */
export async function keySetAccessToken(user: string, kid: string = PUBLISHED_KID): Promise<string> {
  const key = await importJWK(JSON.parse(inject('jwksPrivateJwk')) as JWK, 'ES256');
  return new SignJWT({ sub: user, client_id: 'client-1', scope: 'vault:read' })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .setIssuer(AUTHORIZATION_SERVER)
    .setAudience(ORIGIN)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}
