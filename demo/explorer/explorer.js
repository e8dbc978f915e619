// Knowtation Edge explorer: picks a note and draws the four body-free payloads the Worker returns
// for it (outline, document tree, sections, facets) as cards with collapsible trees, levels and ids.
// The drawing itself is render.js, loaded before this script and shared with the MCP Apps view;
// this script fetches, keeps and paces the requests and lays out the page.
//
// Every string that comes from a note is put into the page with textContent, never parsed as HTML
// (render.js). The Worker is called cross-origin with the bearer token from /session.json,
// exactly as the Hub frontend calls it.
//
// Requests: the Worker allows each user 60 requests a minute in production (and under npm start).
// The page spends them only on what it shows: a card is fetched only while it is open (which cards
// are open is remembered; Expand all opens the rest for the note shown only), each answer is kept in the page, so showing a note again costs nothing,
// and after a 429 the page sends nothing until Retry-After has passed, then fetches what is open.
//
// body[data-state] is 'starting', 'loading', 'done' or 'error' so tests and people can tell when a
// note has been drawn.
'use strict';

const ROUTES = ['note-outline', 'document-tree', 'section-source', 'metadata-facets'];
const DEFAULT_OPEN = ['note-outline'];
const OPEN_CARDS_KEY = 'knowtation-explorer.open-cards';
/** Answers kept in the page (a payload is at most about 1 MB; most are a few KB). */
const CACHE_LIMIT = 500;
const PRODUCTION_LIMIT_TEXT = 'production allows 60 a minute per user';
const LIFT_LIMIT_TEXT = 'npm start -- --env load';

/** @type {{ workerUrl: string, token: string, vaultLabel: string, notes: string[] }} */
let session;
/** The note shown, or null before the first one. */
let current = null;
/** @type {Set<string>} the cards open for every note (remembered across reloads) */
const openCards = new Set(readOpenCards());
/** Cards "Expand all" opened for one note only: { notePath, routes }; another note does not fetch them. */
let expandedFor = { notePath: null, routes: new Set() };
/** route + '\n' + path -> { ok, status, payload } or a lasting failure; insertion order is recency. */
const cache = new Map();
/** route + '\n' + path -> Promise of a result, while the request is in flight. */
const inflight = new Map();
/** Per route, what its card shows for the current note: { kind: 'closed'|'loading'|'ok'|'error'|'waiting', result? }. */
const cardState = new Map();
/** Send times of the page's requests to the Worker (for the meter). */
const sentTimes = [];
/** Until when the Worker asked the page to wait (ms since the epoch); 0 when it has not. */
let pausedUntil = 0;
let resumeTimer = 0;
let tickTimer = 0;
/** @type {Map<string, HTMLButtonElement>} path -> its button in the note list (only the shown ones). */
let listButtons = new Map();

function readOpenCards() {
  try {
    const stored = JSON.parse(localStorage.getItem(OPEN_CARDS_KEY) ?? 'null');
    if (Array.isArray(stored)) return stored.filter((route) => ROUTES.includes(route));
  } catch {
    // No storage (private mode, file://): the default is fine.
  }
  return DEFAULT_OPEN;
}

function saveOpenCards() {
  try {
    localStorage.setItem(OPEN_CARDS_KEY, JSON.stringify([...openCards]));
  } catch {
    // Not remembered across reloads; nothing else changes.
  }
}

function setStatus(text, isError) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('error', Boolean(isError));
}

function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function secondsLeft() {
  return Math.max(0, Math.ceil((pausedUntil - Date.now()) / 1000));
}

// ---------------------------------------------------------------------------------------------
// Requests

function cacheKey(route, notePath) {
  return `${route}\n${notePath}`;
}

/** A result the page may keep: answers and refusals that stay the same while the stack runs. */
function keepable(result) {
  return result.ok || result.status === 404 || result.status === 422 || result.status === 400;
}

function remember(key, result) {
  cache.delete(key);
  cache.set(key, result);
  while (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value);
}

function recall(key) {
  const result = cache.get(key);
  if (result !== undefined) {
    cache.delete(key);
    cache.set(key, result);
  }
  return result;
}

/** Seconds to wait from a Retry-After value (seconds or an HTTP date); 60 when absent or unreadable. */
function retryAfterSeconds(header) {
  if (header === null) return 60;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.max(1, Number(trimmed));
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? 60 : Math.max(1, Math.ceil((date - Date.now()) / 1000));
}

/** One REST call, as the Hub frontend makes it. Resolves to { ok, status, payload | code, message, retryAfter? }. */
async function callRoute(route, notePath) {
  const url = `${session.workerUrl}/api/v1/${route}?path=${encodeURIComponent(notePath)}`;
  sentTimes.push(Date.now());
  drawMeter();
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
  if (response.status === 429) {
    const wait = retryAfterSeconds(response.headers.get('Retry-After'));
    return { ok: false, status: 429, code: body && typeof body.code === 'string' ? body.code : 'RATE_LIMITED', message: 'rate limit reached', retryAfter: wait };
  }
  if (!response.ok || body === null) {
    return { ok: false, status: response.status, code: body && typeof body.code === 'string' ? body.code : 'UNKNOWN', message: body && typeof body.error === 'string' ? body.error : 'unreadable answer' };
  }
  return { ok: true, status: response.status, payload: body };
}

/** The result for one card of one note: from the page's memory, from a request already in flight, or a new request. */
function fetchCard(route, notePath) {
  const key = cacheKey(route, notePath);
  const running = inflight.get(key);
  if (running) return running;
  const request = callRoute(route, notePath).then((result) => {
    inflight.delete(key);
    if (keepable(result)) remember(key, result);
    if (result.status === 429) pause(result.retryAfter);
    return result;
  });
  inflight.set(key, request);
  return request;
}

/** After a 429: no request until the Worker's Retry-After has passed, then the open cards are fetched. */
function pause(seconds) {
  pausedUntil = Math.max(pausedUntil, Date.now() + seconds * 1000);
  clearTimeout(resumeTimer);
  resumeTimer = setTimeout(() => {
    pausedUntil = 0;
    clearInterval(tickTimer);
    tickTimer = 0;
    if (current !== null) showNote();
  }, pausedUntil - Date.now());
  if (!tickTimer) {
    tickTimer = setInterval(() => {
      for (const route of ROUTES) {
        const state = cardState.get(route);
        if (state && (state.kind === 'waiting' || (state.kind === 'error' && state.result.status === 429))) drawCard(route);
      }
      summarize();
    }, 1000);
  }
}

function isPaused() {
  return Date.now() < pausedUntil;
}

function drawMeter() {
  const now = Date.now();
  while (sentTimes.length > 0 && sentTimes[0] <= now - 60_000) sentTimes.shift();
  const meter = document.getElementById('request-meter');
  meter.textContent = `${sentTimes.length} request${sentTimes.length === 1 ? '' : 's'} from this page in the last minute (${PRODUCTION_LIMIT_TEXT}, shared with curl and MCP clients)`;
  meter.dataset.count = String(sentTimes.length);
}

// ---------------------------------------------------------------------------------------------
// Cards

/** Whether a card is open for the note shown: opened for every note, or by Expand all for this one. */
function isOpen(route) {
  return openCards.has(route) || (expandedFor.notePath === current && expandedFor.routes.has(route));
}

function rateLimitText() {
  const seconds = secondsLeft();
  const when = seconds > 0 ? `retry in ${seconds} s (at ${clock(pausedUntil)}); the page retries by itself then` : 'retrying now';
  return `the Worker's per-user rate limit is used up (${PRODUCTION_LIMIT_TEXT}): ${when}. To lift it locally, restart with ${LIFT_LIMIT_TEXT}.`;
}

function drawCard(route) {
  const card = document.getElementById(`panel-${route}`);
  const toggle = card.querySelector('.card-toggle');
  const body = card.querySelector('.card-body');
  const status = card.querySelector('.panel-status');
  const tree = card.querySelector('.tree');
  const cost = card.querySelector('.card-cost');
  const state = cardState.get(route) ?? { kind: 'closed' };
  const open = state.kind !== 'closed';
  toggle.setAttribute('aria-expanded', String(open));
  body.hidden = !open;
  card.classList.toggle('closed', !open);
  card.dataset.state = state.kind;
  cost.textContent = open ? '' : 'closed, not requested: open it to fetch (1 request per note)';
  status.classList.toggle('error', state.kind === 'error' || state.kind === 'waiting');
  if (state.kind === 'closed') {
    tree.replaceChildren();
    status.textContent = '';
    return;
  }
  if (state.kind === 'loading') {
    status.textContent = 'Loading...';
    return;
  }
  if (state.kind === 'waiting') {
    tree.replaceChildren();
    status.textContent = `Not requested yet: ${rateLimitText()}`;
    return;
  }
  const result = state.result;
  tree.replaceChildren();
  if (!result.ok) {
    const words = failureWords(result.code);
    status.textContent =
      result.status === 429
        ? `HTTP 429 ${result.code}: ${rateLimitText()}`
        : words !== undefined
          ? `${words} (HTTP ${result.status} ${result.code})`
          : `HTTP ${result.status} ${result.code}: ${result.message}`;
    return;
  }
  status.textContent = drawPayload(route, result.payload, tree);
}

/** Shows one card of the current note: closed, from memory, waiting out a 429, or fetched now. */
async function showCard(route) {
  const notePath = current;
  if (notePath === null) return;
  if (!isOpen(route)) {
    cardState.set(route, { kind: 'closed' });
    drawCard(route);
    return;
  }
  const kept = recall(cacheKey(route, notePath));
  if (kept !== undefined) {
    cardState.set(route, { kind: kept.ok ? 'ok' : 'error', result: kept });
    drawCard(route);
    return;
  }
  if (isPaused() && !inflight.has(cacheKey(route, notePath))) {
    cardState.set(route, { kind: 'waiting' });
    drawCard(route);
    return;
  }
  cardState.set(route, { kind: 'loading' });
  drawCard(route);
  const result = await fetchCard(route, notePath);
  if (notePath !== current || !isOpen(route)) return;
  cardState.set(route, { kind: result.ok ? 'ok' : 'error', result });
  drawCard(route);
  drawTitle();
  summarize();
}

/** The note's title from whichever open card has one, else its file name. */
function drawTitle() {
  for (const route of ['note-outline', 'document-tree', 'section-source']) {
    const state = cardState.get(route);
    if (state && state.kind === 'ok') {
      document.getElementById('note-title').textContent = state.result.payload.title ?? '(untitled)';
      return;
    }
  }
  document.getElementById('note-title').textContent = current.slice(current.lastIndexOf('/') + 1);
}

/** The status line and body[data-state] from the open cards of the current note. */
function summarize() {
  const open = ROUTES.filter(isOpen);
  const states = open.map((route) => cardState.get(route) ?? { kind: 'loading' });
  if (states.some((state) => state.kind === 'loading')) {
    setStatus('Loading...');
    document.body.dataset.state = 'loading';
    return;
  }
  const failed = states.filter((state) => state.kind === 'error' || state.kind === 'waiting');
  const rateLimited = states.some((state) => state.kind === 'waiting' || (state.kind === 'error' && state.result.status === 429));
  document.body.dataset.rateLimited = String(rateLimited);
  if (open.length === 0) {
    setStatus('No card is open: open one to fetch it.');
    document.body.dataset.state = 'done';
  } else if (failed.length > 0) {
    const first = failed[0].kind === 'waiting' ? 'RATE_LIMITED' : failed[0].result.code;
    // A missing note fails every card alike: then the status says it in words, once.
    const sameWords = failed.length === open.length && failed.every((state) => state.kind === 'error' && state.result.code === first);
    const words = sameWords ? failureWords(first) : undefined;
    setStatus(words ?? `${failed.length} of ${open.length} route${open.length === 1 ? '' : 's'} failed: ${first}${rateLimited ? `; ${rateLimitText()}` : ''}`, true);
    document.body.dataset.state = 'error';
  } else {
    setStatus(`${open.length} route${open.length === 1 ? '' : 's'} answered 200`);
    document.body.dataset.state = 'done';
  }
}

function showNote() {
  document.body.dataset.state = 'loading';
  const tasks = ROUTES.map((route) => showCard(route));
  drawTitle();
  summarize();
  return Promise.all(tasks);
}

function toggleCard(route) {
  if (isOpen(route)) {
    openCards.delete(route);
    expandedFor.routes.delete(route);
  } else {
    openCards.add(route);
  }
  saveOpenCards();
  // Before the first note the choice is only remembered; the note's cards are drawn when it shows.
  if (current === null) return;
  void showCard(route);
  drawTitle();
  summarize();
}

// ---------------------------------------------------------------------------------------------
// Note list

function markCurrent(previous) {
  if (previous !== null) listButtons.get(previous)?.setAttribute('aria-current', 'false');
  if (current !== null) listButtons.get(current)?.setAttribute('aria-current', 'true');
}

/** Scrolls the note list (not the page) so the note's button is in the middle of it. */
function revealInList(notePath) {
  let button = listButtons.get(notePath);
  if (!button && document.getElementById('filter').value !== '') {
    document.getElementById('filter').value = '';
    drawNoteList();
    button = listButtons.get(notePath);
  }
  if (!button) return;
  const nav = document.getElementById('notes');
  const navBox = nav.getBoundingClientRect();
  const box = button.getBoundingClientRect();
  nav.scrollTop += box.top - navBox.top - (nav.clientHeight - box.height) / 2;
}

function selectNote(notePath, { reveal = false } = {}) {
  const previous = current;
  current = notePath;
  markCurrent(previous);
  document.getElementById('note-path').replaceChildren(pathNode(notePath, 'path-segments'));
  if (reveal) revealInList(notePath);
  history.replaceState(null, '', `#${new URLSearchParams({ path: notePath })}`);
  return showNote();
}

function drawNoteList() {
  const filter = document.getElementById('filter').value.trim().toLowerCase();
  const list = document.getElementById('note-list');
  const shown = filter === '' ? session.notes : session.notes.filter((notePath) => notePath.toLowerCase().includes(filter));
  listButtons = new Map();
  const items = shown.map((notePath) => {
    const item = el('li');
    const button = el('button');
    button.type = 'button';
    button.dataset.path = notePath;
    button.setAttribute('aria-current', String(notePath === current));
    button.append(pathNode(notePath, 'path-segments', 'folder'));
    listButtons.set(notePath, button);
    item.append(button);
    return item;
  });
  list.replaceChildren(...items);
  document.getElementById('note-count').textContent = `${shown.length} of ${session.notes.length} notes`;
}

function setAllOpen(open) {
  for (const details of document.querySelectorAll('.tree details')) details.open = open;
}

/**
 * Opens every card and every level of the note shown: a closed card is opened and fetched (one
 * request each, none for a kept answer) for this note only. The next note opens with the cards
 * chosen one by one, so a click-through does not cost four requests per note.
 */
function expandAll() {
  setAllOpen(true);
  if (current === null) return;
  const closed = ROUTES.filter((route) => !isOpen(route));
  if (closed.length === 0) return;
  if (expandedFor.notePath !== current) expandedFor = { notePath: current, routes: new Set() };
  for (const route of closed) expandedFor.routes.add(route);
  for (const route of closed) void showCard(route);
  drawTitle();
  summarize();
}

function requestedPath() {
  return new URLSearchParams(location.hash.slice(1)).get('path');
}

async function main() {
  for (const route of ROUTES) {
    cardState.set(route, { kind: 'closed' });
    drawLegend(document.querySelector(`#panel-${route} .legend`), route);
    document.querySelector(`#panel-${route} .card-toggle`).addEventListener('click', () => toggleCard(route));
  }
  drawLegend(document.getElementById('path-legend'), 'path');
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
  drawMeter();
  setInterval(drawMeter, 5000);
  document.getElementById('filter').addEventListener('input', drawNoteList);
  document.getElementById('note-list').addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-path]') : null;
    if (button) void selectNote(button.dataset.path);
  });
  // A path typed in: the store lists nothing itself (paths come from the Hub), so any path can be opened.
  document.getElementById('open-path').addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = document.getElementById('path-input').value.trim();
    if (typed !== '') void selectNote(typed, { reveal: true });
  });
  document.getElementById('expand-all').addEventListener('click', expandAll);
  document.getElementById('collapse-all').addEventListener('click', () => setAllOpen(false));
  // A #path= link opened in this tab (or typed into the address bar) selects and reveals its note.
  window.addEventListener('hashchange', () => {
    const requested = requestedPath();
    if (requested !== null && requested !== current) void selectNote(requested, { reveal: true });
  });
  drawNoteList();
  const requested = requestedPath();
  const first = requested ?? session.notes[0];
  if (first === undefined) {
    setStatus('No note is listed: type a note\'s path above and press Open.');
    document.body.dataset.state = 'done';
    return;
  }
  await selectNote(first, { reveal: requested !== null });
}

document.addEventListener('DOMContentLoaded', () => void main());
