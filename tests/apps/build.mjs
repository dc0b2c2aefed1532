// Builds the test apps of tests/apps/ with the real Vite (as `npm create vite` apps are built),
// in development mode so that React runs as in `vite dev`: StrictMode's double effects included.
// tokenpaint stays external, loaded from /js/ as the demo server serves it.
import { build } from 'vite';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function buildApp(name) {
  await build({
    root: path.join(here, name),
    base: './',
    mode: 'development',
    logLevel: 'error',
    configFile: false,
    define: { 'process.env.NODE_ENV': '"development"' },
    build: {
      outDir: path.join(here, '..', 'pages', `${name}-app`),
      emptyOutDir: true,
      minify: false,
      target: 'es2022',
      rollupOptions: { external: ['/js/index.js'] },
    },
  });
}
