// @ts-check
/**
 * Fault injection (control API only): checking a fault sent to POST /__control/faults, and making an
 * authenticated note request misbehave as it says (a status, a text, a hang, a reset, a drip, a huge
 * streamed note, a gzip-compressed one).
 */
import { gzipSync } from 'node:zlib';
import { JSON_TYPE, noteDocument, send } from './http.mjs';
import { isIntIn, isOptionalString, isPlainObject } from './values.mjs';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('./store.mjs').StoredNote} StoredNote
 *
 * @typedef {{ kind: 'status', status: number, body?: string, contentType?: string }
 *   | { kind: 'text', body: string, contentType?: string }
 *   | { kind: 'hang' }
 *   | { kind: 'hang-body', chunked?: boolean }
 *   | { kind: 'reset' }
 *   | { kind: 'reset-mid-body' }
 *   | { kind: 'drip', chunks: number, intervalMs: number, chunked?: boolean }
 *   | { kind: 'huge', bytes: number, declareLength?: boolean }
 *   | { kind: 'gzip', bytes: number, padBytes?: number }} CanisterFault
 *
 * @typedef {{ ok: true, fault: CanisterFault | null } | { ok: false, error: string }} FaultCheck
 *
 * @typedef {object} FaultRequest what a fault answers for
 * @property {IncomingMessage} req
 * @property {ServerResponse} res
 * @property {StoredNote | undefined} note the stored note, if any
 * @property {string} path the requested (looked-up) path
 * @property {Timers} timers for the drip, so close() can cancel it
 */

const MAX_HUGE_BYTES = 1024 * 1024 * 1024;
/** The gzip fault builds its document in memory before compressing it. */
const MAX_GZIP_BYTES = 64 * 1024 * 1024;
const MAX_DRIP_CHUNKS = 100_000;
const MAX_DRIP_INTERVAL_MS = 600_000;
const HUGE_CHUNK_CHARS = 64 * 1024;
/** One line of filler for the `huge` fault; ASCII so every char is one byte once JSON-escaped, except the newline. */
const HUGE_FILLER_UNIT = 'Filler paragraph line streamed by the huge fault of the demo canister.\n';

/** Timeouts that can all be cancelled at once (close()). */
export class Timers {
  /** @type {Set<ReturnType<typeof setTimeout>>} */
  #pending = new Set();

  /**
   * @param {() => void} fn
   * @param {number} ms
   */
  schedule(fn, ms) {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      fn();
    }, ms);
    this.#pending.add(timer);
    return timer;
  }

  /** @param {ReturnType<typeof setTimeout>} timer */
  cancel(timer) {
    clearTimeout(timer);
    this.#pending.delete(timer);
  }

  clear() {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

// ---------------------------------------------------------------- checking a fault

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkStatus(fault) {
  if (!isIntIn(fault.status, 200, 599)) return { ok: false, error: 'status must be an integer 200..599' };
  if (!isOptionalString(fault.body) || !isOptionalString(fault.contentType)) {
    return { ok: false, error: 'body and contentType must be strings' };
  }
  return { ok: true, fault: { kind: 'status', status: fault.status, body: fault.body, contentType: fault.contentType } };
}

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkText(fault) {
  if (typeof fault.body !== 'string') return { ok: false, error: 'body must be a string' };
  if (!isOptionalString(fault.contentType)) return { ok: false, error: 'contentType must be a string' };
  return { ok: true, fault: { kind: 'text', body: fault.body, contentType: fault.contentType } };
}

/**
 * The kinds without parameters.
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkBare(fault) {
  return { ok: true, fault: { kind: /** @type {'hang' | 'reset' | 'reset-mid-body'} */ (fault.kind) } };
}

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkHangBody(fault) {
  if (fault.chunked !== undefined && typeof fault.chunked !== 'boolean') return { ok: false, error: 'chunked must be a boolean' };
  return { ok: true, fault: { kind: 'hang-body', chunked: fault.chunked === true } };
}

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkDrip(fault) {
  if (!isIntIn(fault.chunks, 1, MAX_DRIP_CHUNKS)) return { ok: false, error: `chunks must be an integer 1..${MAX_DRIP_CHUNKS}` };
  if (!isIntIn(fault.intervalMs, 0, MAX_DRIP_INTERVAL_MS)) {
    return { ok: false, error: `intervalMs must be an integer 0..${MAX_DRIP_INTERVAL_MS}` };
  }
  if (fault.chunked !== undefined && typeof fault.chunked !== 'boolean') return { ok: false, error: 'chunked must be a boolean' };
  return { ok: true, fault: { kind: 'drip', chunks: fault.chunks, intervalMs: fault.intervalMs, chunked: fault.chunked === true } };
}

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkHuge(fault) {
  if (!isIntIn(fault.bytes, 0, MAX_HUGE_BYTES)) return { ok: false, error: `bytes must be an integer 0..${MAX_HUGE_BYTES}` };
  if (fault.declareLength !== undefined && typeof fault.declareLength !== 'boolean') {
    return { ok: false, error: 'declareLength must be a boolean' };
  }
  return { ok: true, fault: { kind: 'huge', bytes: fault.bytes, declareLength: fault.declareLength === true } };
}

/**
 * @param {Record<string, unknown>} fault
 * @returns {FaultCheck}
 */
function checkGzip(fault) {
  if (!isIntIn(fault.bytes, 0, MAX_GZIP_BYTES)) return { ok: false, error: `bytes must be an integer 0..${MAX_GZIP_BYTES}` };
  if (fault.padBytes !== undefined && !isIntIn(fault.padBytes, 0, MAX_GZIP_BYTES)) {
    return { ok: false, error: `padBytes must be an integer 0..${MAX_GZIP_BYTES}` };
  }
  return { ok: true, fault: { kind: 'gzip', bytes: fault.bytes, padBytes: fault.padBytes ?? 0 } };
}

/** @type {Record<CanisterFault['kind'], (fault: Record<string, unknown>) => FaultCheck>} */
const FAULT_CHECKS = {
  status: checkStatus,
  text: checkText,
  hang: checkBare,
  'hang-body': checkHangBody,
  reset: checkBare,
  'reset-mid-body': checkBare,
  drip: checkDrip,
  huge: checkHuge,
  gzip: checkGzip,
};

/**
 * Validates a fault sent to the control API; returns an error message or the normalized fault.
 * `null` clears the fault.
 * @param {unknown} fault
 * @returns {FaultCheck}
 */
export function validateFault(fault) {
  if (fault === null) return { ok: true, fault: null };
  if (!isPlainObject(fault)) return { ok: false, error: 'fault must be an object or null' };
  const kind = fault.kind;
  if (typeof kind !== 'string' || !Object.prototype.hasOwnProperty.call(FAULT_CHECKS, kind)) {
    return { ok: false, error: 'unknown fault kind' };
  }
  return FAULT_CHECKS[/** @type {CanisterFault['kind']} */ (kind)](fault);
}

// ---------------------------------------------------------------- the huge note's filler

/**
 * Newline count of the first `length` characters of the filler text.
 * @param {number} length
 */
function fillerNewlines(length) {
  const unitLength = HUGE_FILLER_UNIT.length;
  const fullUnits = Math.floor(length / unitLength);
  const tail = HUGE_FILLER_UNIT.slice(0, length % unitLength);
  return fullUnits + (tail.endsWith('\n') ? 1 : 0);
}

/**
 * The filler characters at positions [start, end) of the repeating filler text.
 * @param {number} start
 * @param {number} end
 */
function fillerSlice(start, end) {
  const unitLength = HUGE_FILLER_UNIT.length;
  let out = '';
  let position = start;
  while (position < end) {
    const offset = position % unitLength;
    const take = Math.min(unitLength - offset, end - position);
    out += HUGE_FILLER_UNIT.slice(offset, offset + take);
    position += take;
  }
  return out;
}

// ---------------------------------------------------------------- answering with a fault

/**
 * @param {FaultRequest} request
 * @param {number} status
 * @param {string} body
 * @param {string | undefined} contentType
 */
function answerWith({ res }, status, body, contentType) {
  send(res, status, body, contentType ? { 'Content-Type': contentType } : {});
}

/**
 * The note document as bytes, with 200 headers already written: declaring its full length, or
 * with `chunked`, none (Transfer-Encoding: chunked).
 * @param {FaultRequest} request
 * @param {boolean} [chunked]
 */
function startFullDocument({ res, note, path }, chunked = false) {
  const full = Buffer.from(noteDocument(note, path), 'utf8');
  res.writeHead(200, chunked ? { 'Content-Type': JSON_TYPE } : { 'Content-Type': JSON_TYPE, 'Content-Length': String(full.length) });
  return full;
}

/**
 * 200 headers and the first half of the note document; then nothing more, or a destroyed socket.
 * @param {FaultRequest} request
 * @param {boolean} thenReset
 * @param {boolean} [chunked]
 */
function sendHalfDocument(request, thenReset, chunked = false) {
  const full = startFullDocument(request, chunked);
  const partial = full.subarray(0, Math.max(1, Math.floor(full.length / 2)));
  request.res.write(partial, () => {
    if (thenReset) request.req.socket.destroy();
  });
}

/**
 * Destroys the connection without any response (a TCP reset where Node offers one).
 * @param {FaultRequest} request
 */
function resetConnection({ req }) {
  const socket = req.socket;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/**
 * The valid note document in `chunks` pieces, one every `intervalMs`; stops when the client goes.
 * @param {FaultRequest} request
 * @param {number} chunks
 * @param {number} intervalMs
 * @param {boolean} [chunked]
 */
function dripDocument(request, chunks, intervalMs, chunked = false) {
  const { res, timers } = request;
  const full = startFullDocument(request, chunked);
  const size = Math.ceil(full.length / Math.min(chunks, Math.max(1, full.length)));
  let offset = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  res.on('close', () => {
    if (pending !== undefined) timers.cancel(pending);
  });
  const writeNext = () => {
    pending = undefined;
    if (res.destroyed) return;
    const piece = full.subarray(offset, offset + size);
    offset += piece.length;
    if (offset >= full.length) {
      res.end(piece);
      return;
    }
    res.write(piece);
    pending = timers.schedule(writeNext, intervalMs);
  };
  writeNext();
}

/**
 * Streams `{"path","frontmatter":"{}","body":<bodyChars chars>}` without holding the body in
 * memory, honouring backpressure and stopping as soon as the client goes away.
 * @param {FaultRequest} request
 * @param {number} bodyChars
 * @param {boolean} declareLength
 */
function streamHugeNote({ res, path }, bodyChars, declareLength) {
  const head = Buffer.from(`{"path":${JSON.stringify(path)},"frontmatter":"{}","body":"`, 'utf8');
  const tail = Buffer.from('"}', 'utf8');
  /** @type {Record<string, string>} */
  const headers = { 'Content-Type': JSON_TYPE };
  if (declareLength) {
    // Each newline is escaped as two bytes; every other filler character is one byte.
    headers['Content-Length'] = String(head.length + bodyChars + fillerNewlines(bodyChars) + tail.length);
  }
  res.writeHead(200, headers);
  res.write(head);
  let written = 0;
  let stopped = false;
  res.on('close', () => {
    stopped = true;
  });
  const pump = () => {
    while (!stopped && written < bodyChars) {
      const end = Math.min(bodyChars, written + HUGE_CHUNK_CHARS);
      const chunk = JSON.stringify(fillerSlice(written, end)).slice(1, -1);
      written = end;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!stopped) res.end(tail);
  };
  pump();
}

/**
 * 200, a valid note JSON whose body is `bodyChars` filler characters, with `padBytes` more in a
 * field a reader ignores, gzip-compressed with Content-Encoding: gzip and the compressed
 * Content-Length: a body that decodes to far more bytes than it declares.
 * @param {FaultRequest} request
 * @param {number} bodyChars
 * @param {number} padBytes
 */
function sendGzippedNote({ res, path }, bodyChars, padBytes) {
  const compressed = gzipSync(JSON.stringify({ path, frontmatter: '{}', body: fillerSlice(0, bodyChars), pad: 'p'.repeat(padBytes) }));
  res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip', 'Content-Length': String(compressed.length) });
  res.end(compressed);
}

/**
 * Answers an authenticated note request as the fault says.
 * @param {FaultRequest} request
 * @param {CanisterFault} fault
 */
export function applyFault(request, fault) {
  switch (fault.kind) {
    case 'status':
      answerWith(request, fault.status, fault.body ?? JSON.stringify({ error: `Injected status ${fault.status}`, code: 'INJECTED_FAULT' }), fault.contentType);
      return;
    case 'text':
      answerWith(request, 200, fault.body, fault.contentType);
      return;
    case 'hang':
      // The socket stays open with no response until the client gives up or close() runs.
      return;
    case 'hang-body':
    case 'reset-mid-body':
      sendHalfDocument(request, fault.kind === 'reset-mid-body', fault.kind === 'hang-body' && fault.chunked === true);
      return;
    case 'reset':
      resetConnection(request);
      return;
    case 'drip':
      dripDocument(request, fault.chunks, fault.intervalMs, fault.chunked === true);
      return;
    case 'huge':
      streamHugeNote(request, fault.bytes, fault.declareLength === true);
      return;
    case 'gzip':
      sendGzippedNote(request, fault.bytes, fault.padBytes ?? 0);
  }
}
