// A local stand-in for the jsDelivr npm CDN (`https://cdn.jsdelivr.net/npm/`), for apps that
// load their frontend from it (Solara 1.64: `SOLARA_ASSETS_CDN`). The machines here reach the npm
// registry and no CDN, so the packages are installed from npm (scripts/real-apps.sh) and served by
// the CDN's own paths: `/<package>@<version>/<file>` → `$CDN_DIR/node_modules/<package>/<file>`,
// with the installed version checked. Anything else is a 404, logged.
//
//   CDN_DIR=/opt/tokenpaint-apps/solara-cdn PORT=8766 node scripts/real-apps/cdn.mjs
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.eot': 'application/vnd.ms-fontobject', '.svg': 'image/svg+xml', '.map': 'application/json' };

export function startCdn(dir, port = 0) {
  const modules = path.join(dir, 'node_modules');
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const m = /^\/((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/(.*)$/.exec(decodeURIComponent(url.pathname));
    try {
      if (!m) throw new Error('not a package path');
      const [, name, version, file] = m;
      const pkg = JSON.parse(await readFile(path.join(modules, name, 'package.json'), 'utf8'));
      if (pkg.version !== version) throw new Error(`installed ${name}@${pkg.version}, asked ${version}`);
      const full = path.join(modules, name, file);
      if (!full.startsWith(path.join(modules, name) + path.sep)) throw new Error('outside the package');
      const body = await readFile(full);
      res.writeHead(200, { 'content-type': TYPES[path.extname(full)] || 'application/octet-stream', 'access-control-allow-origin': '*' });
      res.end(body);
    } catch (e) {
      console.log(`cdn: 404 ${url.pathname} (${e.message})`);
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await startCdn(process.env.CDN_DIR || '/opt/tokenpaint-apps/solara-cdn', Number(process.env.PORT) || 8766);
  console.log(`cdn on http://127.0.0.1:${s.address().port}/`);
}
