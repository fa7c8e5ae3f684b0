/**
 * Who a source location belongs to, for the profile summaries: the package of a path under
 * node_modules (pnpm's layout or a plain one), `apps/<app>/<file>` or `packages/<pkg>/<file>` for
 * the gateway's own code, `(node internals)` for Node's built-in modules; null for anything else.
 */
export function codeOwner(location: string): string | null {
  const pkg =
    /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(location) ??
    /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(location);
  if (pkg) return pkg[1]!;
  const own = /\/((?:apps|packages)\/[^/]+)\/(?:dist|src)\/([^:]+)/.exec(location);
  if (own) return `${own[1]}/${own[2]}`;
  if (location === '' || /(^|\s)node:/.test(location)) return '(node internals)';
  return null;
}
