// @ts-check
/**
 * Env files (KEY=VALUE lines, `.dev.vars`) read exactly as wrangler reads them, for
 * `npm run check-config` and `npm run deploy`: the one parser, so the values a check judges are
 * the values a deploy uploads.
 */

/**
 * dotenv's parse (the version wrangler bundles), plus what it silently does with lines it cannot
 * read: every line it skips that is not blank or a `#` comment, and every value whose quotes it
 * could not pair, is reported by line number. Values are returned for the check, never printed.
 * @param {string} source
 * @param {readonly string[]} knownNames the names the Worker reads: only these are named in a warning
 * @returns {{ values: Record<string, string>, malformed: Array<{ line: number, why: string }>, warnings: Array<{ line: number, why: string }> }}
 */
export function parseEnvFile(source, knownNames) {
  const LINE =
    /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;
  const text = source.replace(/\r\n?/g, '\n');
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  /** @param {number} offset 1-based line of a character offset */
  const lineOf = (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  /** @type {Record<string, string>} */
  const values = {};
  /** @type {Array<{ line: number, why: string }>} */
  const malformed = [];
  /** @type {Array<{ line: number, why: string }>} */
  const warnings = [];
  const covered = new Set();
  /** @type {Map<string, number>} */
  const firstLine = new Map();
  let match;
  while ((match = LINE.exec(text)) !== null) {
    const [whole, key, rawValue = ''] = match;
    const start = match.index + (whole.length - whole.trimStart().length);
    const keyLine = lineOf(start);
    // The value's own lines: a quoted value may run on; trailing blank and comment lines the
    // pattern swallows are harmless and also counted as read.
    const valueStart = match.index + whole.indexOf(rawValue, whole.indexOf(key) + key.length);
    const valueEndLine = lineOf(valueStart + Math.max(0, rawValue.length - 1));
    for (let line = keyLine; line <= lineOf(match.index + Math.max(0, whole.length - 1)); line++) covered.add(line);

    let value = rawValue.trim();
    const quote = value[0];
    const unquoted = value.replace(/^(['"`])([\s\S]*)\1$/gm, '$2');
    const paired = unquoted !== value;
    value = unquoted;
    if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    values[key] = value;

    const known = knownNames.includes(key);
    const who = known ? `${key}'s value` : 'the value';
    if ((quote === '"' || quote === "'" || quote === '`') && !paired) {
      const rest = rawValue.trim().slice(1);
      malformed.push({
        line: keyLine,
        why: rest.includes(quote)
          ? `${who} has text after its closing ${quote}, so wrangler dev keeps both quotes as part of the value`
          : `${who} opens a ${quote} quote that is never closed, so wrangler dev keeps the quote as part of the value`,
      });
    } else if (paired && valueEndLine > keyLine) {
      malformed.push({
        line: keyLine,
        why: `${who} is a quoted value that runs on to line ${valueEndLine} (a missing closing quote?); no Worker variable spans lines`,
      });
    }
    if (known && firstLine.has(key)) {
      warnings.push({ line: keyLine, why: `${key} is set again (line ${firstLine.get(key)} is overridden)` });
    } else if (!known) {
      const guess = closestName(key, knownNames);
      warnings.push({
        line: keyLine,
        why: `a name the Worker does not read${guess ? `; did you mean ${guess}?` : ''}`,
      });
    }
    if (!firstLine.has(key)) firstLine.set(key, keyLine);
  }
  const lines = text.split('\n');
  lines.forEach((content, index) => {
    const line = index + 1;
    const trimmed = content.trim();
    if (covered.has(line) || trimmed === '' || trimmed.startsWith('#')) return;
    malformed.push({
      line,
      why: content.includes('=')
        ? 'the text before "=" is not a variable name (letters, digits, _ . - only), so wrangler dev ignores this line'
        : 'no "=" (a KEY=VALUE line), so wrangler dev ignores this line',
    });
  });
  malformed.sort((a, b) => a.line - b.line);
  return { values, malformed, warnings };
}

/**
 * The known name a mistyped name most likely meant (case, or at most two edits), else null.
 * Only a known name is ever printed, never the file's own text.
 * @param {string} name
 * @param {readonly string[]} knownNames
 */
function closestName(name, knownNames) {
  if (name.length > 64) return null;
  const upper = name.toUpperCase();
  let best = null;
  let bestDistance = 3;
  for (const candidate of knownNames) {
    const distance = candidate === upper ? 0 : editDistance(upper, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * @param {string} a
 * @param {string} b
 */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The secrets an env file gives a deployment: each of `secretNames` it sets to a non-blank value
 * (blank means unset, as in the Worker; an empty secret would only hide the stored one).
 * @param {Record<string, string>} values
 * @param {readonly string[]} secretNames
 * @returns {Record<string, string>}
 */
export function secretsToUpload(values, secretNames) {
  return Object.fromEntries(secretNames.filter((name) => Object.hasOwn(values, name) && values[name].trim() !== '').map((name) => [name, values[name]]));
}
