"""JavaScript and TypeScript: Vitest, Jest, Mocha and node's runner (runner), bun (bun);
the module graph (modules, reach), rgr's direct form of an npm script (direct), a
package mixing runners (mixed), tsc's diagnostics (ts_diagnostics) and node's reporter
(node_reporter.mjs)."""
