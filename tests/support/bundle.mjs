// Bundles the renderer test app (real marked, markdown-it, React, react-markdown from
// node_modules) with esbuild; tokenpaint itself stays external, loaded from /js/ as users do.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function bundleRenderers(name = 'renderers') {
  // The renderer page's highlighter is a script of its own (www/highlighter.js, the lab's).
  if (name === 'renderers') {
    await build({ entryPoints: [path.join(here, '..', '..', 'www/highlighter.js')], outfile: path.join(here, '..', 'pages/highlighter.bundle.js'), bundle: true, format: 'iife', target: 'es2022', logLevel: 'error', minify: false });
  }
  await bundleJsx(path.join(here, '..', `pages/${name}.jsx`), path.join(here, '..', `pages/${name}.bundle.js`));
}

/**
 * Bundles a JSX page (its npm packages from node_modules) into one ES module; tokenpaint itself
 * stays external, loaded from /js/ as users do. Function names are kept: late-paint
 * attribution names them.
 */
export async function bundleJsx(entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    external: ['/js/index.js'],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
    minify: false,
  });
}
