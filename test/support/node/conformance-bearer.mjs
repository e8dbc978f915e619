// Preloaded (`node --import`) into the conformance suite's own Node 22 process: the suite has no
// option for a bearer token, so every request it sends to the one origin under test carries
// `Authorization: Bearer <token>`, and requests to any other origin pass untouched. The suite
// sends through three paths: global fetch and undici's request (both use the process-wide undici
// dispatcher set here) and node:http's request (wrapped here). The token and origin arrive in the
// environment and are never printed.
import http from 'node:http';
import { createRequire } from 'node:module';

const origin = process.env.KT_CONFORMANCE_ORIGIN;
const token = process.env.KT_CONFORMANCE_BEARER;
if (!origin || !token) throw new Error('conformance-bearer: KT_CONFORMANCE_ORIGIN and KT_CONFORMANCE_BEARER must be set');

// The suite's own undici, so its `request` and this dispatcher speak one version.
const suiteRequire = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'));
const { Agent, setGlobalDispatcher } = suiteRequire('undici');

/** Request headers in any shape undici passes (object, flat array, iterable of pairs) as [name, value] pairs. */
function headerPairs(headers) {
  if (headers == null) return [];
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) return headers.map(([name, value]) => [String(name), value]);
    const pairs = [];
    for (let i = 0; i < headers.length; i += 2) pairs.push([String(headers[i]), headers[i + 1]]);
    return pairs;
  }
  if (typeof headers[Symbol.iterator] === 'function') return [...headers].map(([name, value]) => [String(name), value]);
  return Object.entries(headers);
}

const withBearer = (dispatch) => (options, handler) => {
  const target = typeof options.origin === 'string' ? options.origin : options.origin?.origin;
  if (target !== origin) return dispatch(options, handler);
  const headers = headerPairs(options.headers).filter(([name]) => name.toLowerCase() !== 'authorization');
  headers.push(['authorization', `Bearer ${token}`]);
  return dispatch({ ...options, headers: headers.flat() }, handler);
};

setGlobalDispatcher(new Agent().compose(withBearer));

const target = new URL(origin);
const originalHttpRequest = http.request;
/** node:http requests given as an options object (how the suite calls it) to the target host and port get the header too. */
http.request = function requestWithBearer(options, ...rest) {
  const isTarget =
    options !== null && typeof options === 'object' && !(options instanceof URL) &&
    options.hostname === target.hostname && String(options.port) === target.port;
  if (!isTarget) return originalHttpRequest.call(this, options, ...rest);
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'authorization'));
  return originalHttpRequest.call(this, { ...options, headers: { ...headers, Authorization: `Bearer ${token}` } }, ...rest);
};
