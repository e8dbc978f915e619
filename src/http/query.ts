/**
 * The one `path` of a REST query string.
 *
 * Invariant: the answer is the value URLSearchParams gives for `path` when the query names `path`
 * exactly once and that value's percent-decoded bytes are UTF-8; otherwise undefined (an invalid
 * path). URLSearchParams decodes bytes that are not UTF-8 (`%FF`, an encoded surrogate `%ED%A0%80`,
 * an overlong `%C0%AE`) to U+FFFD, which would name a different note than the one asked for; a
 * fatal decode refuses them instead. Linear in the query's length.
 */
import { decodePercentEscapesStrictly } from '../vault/path';

/** application/x-www-form-urlencoded decoding of one name or value, or null when its bytes are not UTF-8. */
function decodeFormComponent(raw: string): string | null {
  return decodePercentEscapesStrictly(raw.replaceAll('+', ' '));
}

/** The `path` query value of `url` when it is given exactly once and decodes as UTF-8, else undefined. */
export function singlePathParam(url: URL): string | undefined {
  const paths = url.searchParams.getAll('path');
  if (paths.length !== 1) return undefined;
  for (const pair of url.search.slice(1).split('&')) {
    const equals = pair.indexOf('=');
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    // A name that is not UTF-8 is not `path` either (URLSearchParams reads it with U+FFFD).
    if (decodeFormComponent(rawName) !== 'path') continue;
    const value = decodeFormComponent(equals < 0 ? '' : pair.slice(equals + 1));
    return value === null ? undefined : value;
  }
  return undefined;
}
