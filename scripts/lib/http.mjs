// @ts-check
/** HTTP helpers shared by the scripts that call a running Worker (start, smoke, load). */

/**
 * One HTTP exchange, its body read as text and parsed as JSON when possible.
 * @typedef {{ status: number, headers: Headers, text: string, json: unknown }} Exchange
 */

/**
 * The JSON value of text, or undefined when it is not JSON.
 * @param {string} text
 * @returns {unknown}
 */
export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Fetches url with a timeout (a TimeoutError when it runs out) and reads the whole body.
 * @param {string} url
 * @param {RequestInit} init
 * @param {number} timeoutMs
 * @returns {Promise<Exchange>}
 */
export async function fetchExchange(url, init, timeoutMs) {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

/**
 * The status of `GET <base>/health` (body discarded); throws when nothing answers in time.
 * @param {string} base
 * @param {number} timeoutMs
 * @returns {Promise<number>}
 */
export async function healthStatus(base, timeoutMs) {
  const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  await response.body?.cancel();
  return response.status;
}
