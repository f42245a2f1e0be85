/** The gateway's version, from its package.json. */
export { PACKAGE_VERSION as VERSION } from './package-root';
