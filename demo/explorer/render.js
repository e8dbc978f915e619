// The structure renderer shared by the explorer page (demo/explorer/) and the MCP Apps view
// (assets/mcp-view.html, built by scripts/build-mcp-view.mjs): it draws one of the four body-free
// payloads as a collapsible tree (outline, document tree, sections) or a facets table, with
// levels, ids and a one-line legend per contract. Pure DOM drawing: no network, no storage.
//
// Every string that comes from a note (heading text, ids, titles, facet values, paths) is put into
// the page with textContent, never parsed as HTML: heading text is untrusted data. Note-derived
// text is bidi-isolated (dir="auto" or <bdi>), so a right-to-left heading or path segment never
// reorders the text around it.
//
// A classic script: its top-level declarations are shared with the page script loaded after it.
'use strict';

/** The seven frontmatter keys the facets contract reads, in its order. */
const FACET_ORDER = ['project', 'tags', 'date', 'updated', 'causal_chain_id', 'entity', 'episode_id'];
/** The widest id column a card gives its ids, in characters; longer ids wrap inside it. */
const ID_COLUMN_MAX_CHARS = 44;
/** Each payload's `schema` string and the route (card) that draws it. */
const SCHEMA_ROUTES = {
  'knowtation.note_outline/v1': 'note-outline',
  'knowtation.document_tree/v0': 'document-tree',
  'knowtation.section_source/v0': 'section-source',
  'knowtation.metadata_facets/v0': 'metadata-facets',
};

/** Creates an element with a class and text content (never HTML). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** Note-derived text in its own bidi context: its direction comes from its own first strong character. */
function isolated(tag, className, text) {
  const node = el(tag, className, text);
  node.dir = 'auto';
  return node;
}

/**
 * A vault path drawn left to right as the folder hierarchy it is: each folder and the file name's
 * stem isolated in a <bdi>, the extension after it, so a right-to-left name shows in its own
 * direction without reordering the path or moving `.md` to its other side. textContent is exactly
 * the path.
 */
function pathNode(notePath, className, folderClass) {
  const node = el('span', className);
  node.dir = 'ltr';
  const segments = notePath.split('/');
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    const folder = !last && folderClass ? ` ${folderClass}` : '';
    if (index > 0) node.append(el('span', `sep${folder}`, '/'));
    const extension = last ? /^(.+)(\.[A-Za-z0-9]{1,10})$/s.exec(segment) : null;
    if (extension) node.append(el('bdi', 'segment', extension[1]), el('span', 'ext', extension[2]));
    else node.append(el('bdi', `segment${folder}`, segment));
  });
  return node;
}

// ---------------------------------------------------------------------------------------------
// Trees

/** The row of one heading-like node: level badge, text, optional flag, id (ids align in a column). */
function headingRow(level, text, id, flag) {
  const row = el('span', 'row');
  row.append(el('span', 'level', level === undefined ? '' : `H${level}`));
  row.append(text === '' ? el('span', 'text empty', '(empty heading)') : isolated('span', 'text', text));
  if (flag) row.append(flag);
  row.append(id !== undefined && id !== '' ? el('code', 'id', `#${id}`) : el('span', 'id'));
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
    const flag = el('span', section.body_available ? 'flag' : 'flag warn', section.body_available ? 'has body' : 'no body');
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

/** The longest id a heading card shows, in characters (the id column's width). */
function longestId(route, payload) {
  let longest = 0;
  const visit = (node) => {
    longest = Math.max(longest, node.id.length + 1);
    node.children.forEach(visit);
  };
  if (route === 'note-outline') for (const heading of payload.headings) longest = Math.max(longest, heading.id.length + 1);
  if (route === 'document-tree') payload.root.children.forEach(visit);
  if (route === 'section-source') for (const section of payload.sections) longest = Math.max(longest, section.section_id.length + 1);
  return Math.min(longest, ID_COLUMN_MAX_CHARS);
}

/** The facets card: one row per key, every value of a list shown (repeats included), in order. */
function drawFacets(payload) {
  const table = el('div', 'facets');
  const addRow = (group, key, value) => {
    const row = el('div', 'facet-row');
    row.append(el('span', 'group', group), el('span', 'key', key));
    const values = el('span', 'values');
    if (value === null) values.append(el('span', 'value null', 'null'));
    else if (Array.isArray(value)) {
      if (value.length === 0) values.append(el('span', 'value null', '[] (none)'));
      for (const item of value) values.append(isolated('span', 'value chip', item));
      if (value.length > 1) values.append(el('span', 'count muted small', `${value.length} values`));
    } else values.append(isolated('span', 'value', value));
    row.append(values);
    table.append(row);
  };
  const keys = [...FACET_ORDER, ...Object.keys(payload.facets).filter((key) => !FACET_ORDER.includes(key))];
  for (const key of keys) if (Object.prototype.hasOwnProperty.call(payload.facets, key)) addRow('facets', key, payload.facets[key]);
  for (const [key, value] of Object.entries(payload.inferred)) addRow('inferred', key, value);
  return table;
}

const DRAW = {
  'note-outline': { nodes: outlineNodes, count: (p) => `${p.headings.length} heading${p.headings.length === 1 ? '' : 's'}` },
  'document-tree': { nodes: documentTreeNodes, count: (p) => `${p.root.children.length} top-level node${p.root.children.length === 1 ? '' : 's'}` },
  'section-source': { nodes: sectionNodes, count: (p) => `${p.sections.length} section${p.sections.length === 1 ? '' : 's'}` },
  'metadata-facets': { count: (p) => `${FACET_ORDER.filter((key) => Object.prototype.hasOwnProperty.call(p.facets, key)).length} facets and ${Object.keys(p.inferred).length} inferred fields` },
};

/**
 * What each card shows, in one line for the person looking at it: plain strings, and [tag, text]
 * pairs drawn as that element with the text as its textContent. The rules behind the values (how
 * ids and facet values are formed, where paths come from) are in docs/MCP.md, "What ids and
 * facets can tell apart", and demo/README.md.
 */
const LEGENDS = {
  'note-outline': [
    'Every heading of the note, in order, indented by level (', ['strong', 'H1'], ' the biggest, ', ['strong', 'H6'],
    ' the smallest), each with the id that names it. Up to 500 headings.',
  ],
  'document-tree': [
    'The same headings as a tree: each heading sits under the nearest bigger heading above it.',
  ],
  'section-source': [
    'The note cut into sections, one per heading, nested as the headings are. ', ['strong', 'has body'],
    ': there is text under the heading (the text itself is never shown). A section id is unique within its note only.',
  ],
  'metadata-facets': [
    'What the note\'s frontmatter says about it, from these keys only: ', ['code', FACET_ORDER.join(', ')],
    '. A note without them shows them empty. Names and tags are shown simplified (lower case, with dashes); one with no Latin letter or digit is left out. ',
    ['strong', 'inferred'], ': what the note\'s folder says.',
  ],
  path: [
    'One note, read by its exact path (with ', ['code', '.md'], '): its structure only, never its text.',
  ],
};

/**
 * A failed read in words for the person looking: keyed by the Worker's REST error code, or by the
 * MCP tool result's message (which keeps the Knowtation hosted server's text, `Upstream 404`).
 * Undefined where no plainer words exist; the code itself is shown then.
 */
const FAILURE_WORDS = {
  NOT_FOUND: 'No note at this path.',
  'Upstream 404': 'No note at this path.',
  INVALID_PATH: 'This cannot be a note\'s path (for example it starts with / or has a .. folder).',
  'Invalid path': 'This cannot be a note\'s path (for example it starts with / or has a .. folder).',
  NOTE_TOO_LARGE: 'This note is too large to read.',
  'Note too large': 'This note is too large to read.',
  UPSTREAM_TIMEOUT: 'The notes store did not answer in time. Try again.',
  'Upstream timeout': 'The notes store did not answer in time. Try again.',
};

/** The words of FAILURE_WORDS for a REST code or an MCP tool message, or undefined. */
function failureWords(codeOrMessage) {
  return Object.prototype.hasOwnProperty.call(FAILURE_WORDS, codeOrMessage) ? FAILURE_WORDS[codeOrMessage] : undefined;
}

/** Fills `node` with the legend of a route (or of `path`), as text and text-only elements. */
function drawLegend(node, route) {
  node.replaceChildren(...LEGENDS[route].map((piece) => (typeof piece === 'string' ? document.createTextNode(piece) : el(piece[0], null, piece[1]))));
  return node;
}

/**
 * Draws one payload of `route` into `tree` (emptied first) and returns its one-line count
 * (headings, nodes, sections or facets, and whether the contract truncated it).
 */
function drawPayload(route, payload, tree) {
  tree.replaceChildren();
  const count = `${DRAW[route].count(payload)}${payload.truncated ? ' · truncated by the contract' : ''}`;
  if (route === 'metadata-facets') {
    tree.append(drawFacets(payload));
    return count;
  }
  tree.style.setProperty('--id-chars', String(longestId(route, payload)));
  const nodes = DRAW[route].nodes(payload);
  if (nodes.length === 0) tree.append(el('p', 'muted small', 'no headings'));
  else tree.append(drawTree(nodes));
  return count;
}
