// @ts-check
/** Checks on JSON values from vault frontmatter and from control requests. */

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isPlainObject(value) {
  return Object.prototype.toString.call(value) === '[object Object]';
}

/**
 * @param {unknown} value
 * @returns {value is string | undefined}
 */
export function isOptionalString(value) {
  return value === undefined || typeof value === 'string';
}

/**
 * @param {unknown} value
 * @param {number} min
 * @param {number} max
 * @returns {value is number}
 */
export function isIntIn(value, min, max) {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
