// Generated from package.json by scripts/write-version.mjs (run by `npm version`); do not edit.
export const PACKAGE_VERSION = "0.1.0";
