// Values provided by test/support/node/global-setup.ts (a copy for the worker tsconfig lives in
// test/support/worker/provided.d.ts; keep both identical).
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the demo canister, without a trailing slash. */
    canisterUrl: string;
    /** The canister's X-Gateway-Auth secret for this test run. */
    canisterSecret: string;
    /** Base URL of the JWK set stand-in (test/support/node/jwks-server.ts): /good, /huge, /hang, /drip, /not-a-set, /rotating/<id>, /controlled/<id>. */
    jwksUrl: string;
    /** The private JWK (ES256, kid jwks-test) of the key /good publishes, as JSON. */
    jwksPrivateJwk: string;
    /** Base URL of the Hub's hosted-context stand-in (demo/hub-context.mjs); its endpoint is /api/v1/hosted-context. */
    hubUrl: string;
    /** The X-Control-Secret of that stand-in's control API. */
    hubControlSecret: string;
  }
}
