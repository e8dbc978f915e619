// Knowtation Edge explorer: picks a note and draws the four body-free payloads the Worker returns
// for it (outline, document tree, sections, facets) as collapsible trees with levels and ids.
//
// Every string that comes from a note (heading text, ids, titles, facet values, paths) is put into
// the page with textContent or as an attribute value, never parsed as HTML: heading text is
// untrusted data. The Worker is called cross-origin with the bearer token from /session.json,
// exactly as the Hub frontend calls it. body[data-state] is 'starting', 'loading', 'done' or
// 'error' so tests and people can tell when a note has been drawn.
'use strict';

const ROUTES = ['note-outline', 'document-tree', 'section-source', 'metadata-facets'];
const FACET_ORDER = ['project', 'tags', 'date', 'updated', 'causal_chain_id', 'entity', 'episode_id'];

/** @type {{ workerUrl: string, token: string, vaultLabel: string, notes: string[] }} */
let session;
let loadSeq = 0;

/** Creates an element with a class and text content (never HTML). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function setStatus(text, isError) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('error', Boolean(isError));
}

/** The row of one heading-like node: level badge, text, id. */
function headingRow(level, text, id, extra) {
  const row = el('span', 'row');
  row.append(el('span', 'level', level === undefined ? '' : `H${level}`));
  const label = el('span', text === '' ? 'text empty' : 'text', text === '' ? '(empty heading)' : text);
  row.append(label);
  if (id !== undefined && id !== '') row.append(el('code', 'id', `#${id}`));
  if (extra) row.append(extra);
  return row;
}

/**
 * A collapsible tree: nodes are { row: Element, children: node[] }. A node with children becomes
 * <details open><summary>row</summary><ul>...</ul></details>; a leaf is just its row.
 */
function drawTree(nodes) {
  const list = el('ul');
  for (const node of nodes) {
    const item = el('li');
    if (node.children.length > 0) {
      const details = el('details');
      details.open = true;
      const summary = el('summary');
      summary.append(node.row);
      details.append(summary, drawTree(node.children));
      item.append(details);
    } else {
      item.className = 'leaf';
      item.append(node.row);
    }
    list.append(item);
  }
  return list;
}

/** Nests a flat, ordered heading list by level (a deeper heading belongs to the last shallower one). */
function nestByLevel(headings) {
  const roots = [];
  const stack = [];
  for (const heading of headings) {
    const node = { level: heading.level, row: headingRow(heading.level, heading.text, heading.id), children: [] };
    while (stack.length > 0 && stack[stack.length - 1].level >= heading.level) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  }
  return roots;
}

function outlineNodes(payload) {
  return nestByLevel(payload.headings);
}

function documentTreeNodes(payload) {
  const convert = (node) => ({ row: headingRow(node.level, node.text, node.id), children: node.children.map(convert) });
  return payload.root.children.map(convert);
}

function sectionNodes(payload) {
  const byId = new Map(payload.sections.map((section) => [section.section_id, section]));
  const childIds = new Set(payload.sections.flatMap((section) => section.child_section_ids));
  const seen = new Set();
  const convert = (section) => {
    seen.add(section.section_id);
    const flag = el('span', section.body_available ? 'flag' : 'flag warn', section.body_available ? 'body available' : 'no body');
    return {
      row: headingRow(section.level, section.heading_text, section.section_id, flag),
      children: section.child_section_ids
        .map((id) => byId.get(id))
        .filter((child) => child !== undefined && !seen.has(child.section_id))
        .map(convert),
    };
  };
  return payload.sections.filter((section) => !childIds.has(section.section_id)).map(convert);
}

function valueRow(key, value) {
  const row = el('span', 'row');
  row.append(el('span', 'key', key));
  if (value === null) row.append(el('span', 'value null', 'null'));
  else row.append(el('span', 'value', value));
  return row;
}

function facetNodes(payload) {
  const keys = [...FACET_ORDER, ...Object.keys(payload.facets).filter((key) => !FACET_ORDER.includes(key))];
  const facetChildren = keys
    .filter((key) => Object.prototype.hasOwnProperty.call(payload.facets, key))
    .map((key) => {
      const value = payload.facets[key];
      if (Array.isArray(value)) {
        return { row: valueRow(key, value.length === 0 ? '[]' : `${value.length} value${value.length === 1 ? '' : 's'}`), children: value.map((item) => ({ row: valueRow('', item), children: [] })) };
      }
      return { row: valueRow(key, value), children: [] };
    });
  const inferredChildren = Object.entries(payload.inferred).map(([key, value]) => ({ row: valueRow(key, value), children: [] }));
  return [
    { row: valueRow('facets', ''), children: facetChildren },
    { row: valueRow('inferred', ''), children: inferredChildren },
  ];
}

const DRAW = {
  'note-outline': { nodes: outlineNodes, count: (p) => `${p.headings.length} heading${p.headings.length === 1 ? '' : 's'}` },
  'document-tree': { nodes: documentTreeNodes, count: (p) => `${p.root.children.length} top-level node${p.root.children.length === 1 ? '' : 's'}` },
  'section-source': { nodes: sectionNodes, count: (p) => `${p.sections.length} section${p.sections.length === 1 ? '' : 's'}` },
  'metadata-facets': { nodes: facetNodes, count: () => 'facets and inferred fields' },
};

/** One REST call, as the Hub frontend makes it. Resolves to { ok, status, payload | code, message }. */
async function callRoute(route, notePath) {
  const url = `${session.workerUrl}/api/v1/${route}?path=${encodeURIComponent(notePath)}`;
  let response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${session.token}` }, cache: 'no-store' });
  } catch (error) {
    return { ok: false, status: 0, code: 'NETWORK', message: `request failed (${error && error.name ? error.name : 'error'}); is the Worker running?` };
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok || body === null) {
    return { ok: false, status: response.status, code: body && typeof body.code === 'string' ? body.code : 'UNKNOWN', message: body && typeof body.error === 'string' ? body.error : 'unreadable answer' };
  }
  return { ok: true, status: response.status, payload: body };
}

function drawPanel(route, result) {
  const panel = document.getElementById(`panel-${route}`);
  const status = panel.querySelector('.panel-status');
  const tree = panel.querySelector('.tree');
  tree.replaceChildren();
  status.classList.toggle('error', !result.ok);
  if (!result.ok) {
    status.textContent = `HTTP ${result.status} ${result.code}: ${result.message}`;
    return;
  }
  const payload = result.payload;
  const truncated = payload.truncated ? ' · truncated' : '';
  status.textContent = `${DRAW[route].count(payload)}${truncated}`;
  const nodes = DRAW[route].nodes(payload);
  if (nodes.length === 0) tree.append(el('p', 'muted small', 'nothing here'));
  else tree.append(drawTree(nodes));
}

async function loadNote(notePath) {
  const seq = ++loadSeq;
  document.body.dataset.state = 'loading';
  for (const button of document.querySelectorAll('#note-list button')) {
    button.setAttribute('aria-current', String(button.dataset.path === notePath));
  }
  document.getElementById('note-path').textContent = notePath;
  document.getElementById('note-title').textContent = notePath;
  setStatus('Loading...');
  const results = await Promise.all(ROUTES.map((route) => callRoute(route, notePath)));
  if (seq !== loadSeq) return;
  ROUTES.forEach((route, index) => drawPanel(route, results[index]));
  const outline = results[0];
  if (outline.ok) document.getElementById('note-title').textContent = outline.payload.title ?? '(untitled)';
  const failed = results.filter((result) => !result.ok);
  if (failed.length > 0) {
    setStatus(`${failed.length} of ${ROUTES.length} routes failed: ${failed[0].code}`, true);
    document.body.dataset.state = 'error';
  } else {
    setStatus(`${ROUTES.length} routes answered 200`);
    document.body.dataset.state = 'done';
  }
  history.replaceState(null, '', `#${new URLSearchParams({ path: notePath })}`);
}

function drawNoteList() {
  const filter = document.getElementById('filter').value.trim().toLowerCase();
  const list = document.getElementById('note-list');
  const shown = session.notes.filter((notePath) => notePath.toLowerCase().includes(filter));
  list.replaceChildren(
    ...shown.map((notePath) => {
      const item = el('li');
      const button = el('button');
      button.type = 'button';
      button.dataset.path = notePath;
      const slash = notePath.lastIndexOf('/');
      if (slash >= 0) button.append(el('span', 'folder', notePath.slice(0, slash + 1)));
      button.append(document.createTextNode(notePath.slice(slash + 1)));
      button.addEventListener('click', () => void loadNote(notePath));
      item.append(button);
      return item;
    }),
  );
  document.getElementById('note-count').textContent = `${shown.length} of ${session.notes.length} notes`;
}

function setAllOpen(open) {
  for (const details of document.querySelectorAll('.tree details')) details.open = open;
}

async function main() {
  try {
    const response = await fetch('/session.json', { cache: 'no-store' });
    session = await response.json();
  } catch {
    setStatus('Cannot read /session.json from the explorer server; is npm start still running?', true);
    document.body.dataset.state = 'error';
    return;
  }
  document.getElementById('worker-url').textContent = session.workerUrl;
  document.getElementById('vault-label').textContent = session.vaultLabel;
  document.getElementById('filter').addEventListener('input', drawNoteList);
  document.getElementById('expand-all').addEventListener('click', () => setAllOpen(true));
  document.getElementById('collapse-all').addEventListener('click', () => setAllOpen(false));
  drawNoteList();
  const requested = new URLSearchParams(location.hash.slice(1)).get('path');
  const first = requested ?? session.notes[0];
  if (first === undefined) {
    setStatus('The vault has no notes.', true);
    document.body.dataset.state = 'done';
    return;
  }
  await loadNote(first);
}

document.addEventListener('DOMContentLoaded', () => void main());
