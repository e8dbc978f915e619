// The MCP Apps view (SEP-1865, io.modelcontextprotocol/ui, spec revision 2026-01-26) of the four
// body-free contracts: a chat client renders it in a sandboxed iframe beside a tool's result and
// hands it the result over postMessage; it draws the payload with render.js, the explorer's own
// renderer, which this file follows in the one inline script of assets/mcp-view.html.
//
// Protocol, View side: `ui/initialize` to the host (its answer carries the theme and style
// variables), then `ui/notifications/initialized`; the host then sends `ui/notifications/tool-input`
// and `ui/notifications/tool-result` (a CallToolResult whose structuredContent is the payload).
// Host context changes, `ping` and `ui/resource-teardown` are answered; size changes are reported.
// Only messages from the parent window are read. Nothing here fetches: the page's own CSP allows
// no network at all, and every byte drawn comes from the tool result.
//
// body[data-state] is 'waiting', 'done' or 'error' so hosts' tests can tell when it has drawn.
'use strict';

const APP_PROTOCOL_VERSION = '2026-01-26';
const APP_INFO = { name: 'knowtation-structure-view', version: '1.0.0' };
/** Host style variables the view reads (the spec's standard names), all others ignored. */
const HOST_VARIABLE = /^--(color|font|border-radius|border-width)-[a-z0-9-]+$/;

let nextRequestId = 1;
/** Request id -> resolve, for the host's answers. */
const pending = new Map();

function send(message) {
  // The host's origin is not known to a sandboxed view; only the parent window receives this.
  window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
}

function request(method, params) {
  const id = nextRequestId++;
  send({ id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}

/** The host's theme ('light' or 'dark') and its standard CSS variables, applied to the document. */
function applyHostContext(context) {
  if (!context || typeof context !== 'object') return;
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  const variables = context.styles && context.styles.variables;
  if (variables && typeof variables === 'object') {
    for (const [name, value] of Object.entries(variables)) {
      if (HOST_VARIABLE.test(name) && typeof value === 'string') root.style.setProperty(name, value);
    }
  }
}

function setState(state, statusText) {
  document.body.dataset.state = state;
  const status = document.getElementById('status');
  status.textContent = statusText;
  status.classList.toggle('error', state === 'error');
}

/** The payload a tool result carries: its structuredContent, else its first text item's JSON. */
function payloadOf(result) {
  if (result.structuredContent && typeof result.structuredContent === 'object') return result.structuredContent;
  const first = Array.isArray(result.content) ? result.content.find((item) => item && item.type === 'text') : undefined;
  if (!first || typeof first.text !== 'string') return null;
  try {
    return JSON.parse(first.text);
  } catch {
    return null;
  }
}

/**
 * A tool error result (`{ error, code }` in its text) in words for people where render.js has
 * them ("No note at this path." for the result's `Upstream 404`), else its fixed message.
 */
function toolErrorText(result) {
  const payload = payloadOf(result);
  if (!payload || typeof payload.error !== 'string') return 'The tool answered an error.';
  return failureWords(payload.error) ?? `The tool answered an error: ${payload.error}`;
}

function showToolResult(result) {
  const tree = document.getElementById('tree');
  const legend = document.getElementById('legend');
  if (!result || typeof result !== 'object') return;
  if (result.isError) {
    tree.replaceChildren();
    legend.replaceChildren();
    setState('error', toolErrorText(result));
    return;
  }
  const payload = payloadOf(result);
  const route = payload && typeof payload.schema === 'string' ? SCHEMA_ROUTES[payload.schema] : undefined;
  if (route === undefined) {
    tree.replaceChildren();
    legend.replaceChildren();
    setState('error', 'This view draws Knowtation structure payloads only.');
    return;
  }
  document.getElementById('view').dataset.route = route;
  document.getElementById('schema').textContent = payload.schema;
  document.getElementById('title').textContent = typeof payload.title === 'string' && payload.title !== '' ? payload.title : payload.path;
  document.getElementById('note-path').replaceChildren(pathNode(String(payload.path), 'path-segments'));
  drawLegend(legend, route);
  setState('done', drawPayload(route, payload, tree));
}

function setAllOpen(open) {
  for (const details of document.querySelectorAll('#tree details')) details.open = open;
}

function onMessage(event) {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
  if (!('method' in message)) {
    const resolve = pending.get(message.id);
    if (resolve) {
      pending.delete(message.id);
      resolve(message.result);
    }
    return;
  }
  const params = message.params;
  switch (message.method) {
    case 'ui/notifications/tool-result':
      showToolResult(params);
      break;
    case 'ui/notifications/host-context-changed':
      applyHostContext(params);
      break;
    case 'ui/notifications/tool-cancelled':
      setState('error', 'The tool call was cancelled.');
      break;
    case 'ping':
    case 'ui/resource-teardown':
      if ('id' in message) send({ id: message.id, result: {} });
      break;
    default:
      if ('id' in message) send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
}

/** Reports the document's size to the host whenever it changes (ui/notifications/size-changed). */
function reportSize() {
  let last = '';
  const observer = new ResizeObserver(() => {
    const width = Math.ceil(document.documentElement.scrollWidth);
    const height = Math.ceil(document.documentElement.scrollHeight);
    const size = `${width}x${height}`;
    if (size === last) return;
    last = size;
    send({ method: 'ui/notifications/size-changed', params: { width, height } });
  });
  observer.observe(document.documentElement);
}

async function main() {
  window.addEventListener('message', onMessage);
  drawLegend(document.getElementById('path-legend'), 'path');
  document.getElementById('expand-all').addEventListener('click', () => setAllOpen(true));
  document.getElementById('collapse-all').addEventListener('click', () => setAllOpen(false));
  setState('waiting', 'Waiting for the tool result...');
  const initialized = await request('ui/initialize', {
    appInfo: APP_INFO,
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: APP_PROTOCOL_VERSION,
  });
  applyHostContext(initialized && initialized.hostContext);
  send({ method: 'ui/notifications/initialized', params: {} });
  reportSize();
}

document.addEventListener('DOMContentLoaded', () => void main());
