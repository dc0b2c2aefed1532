// Starts a real nginx (Debian's nginx-light) in front of the demo server, on a free port of
// 127.0.0.1, with the config in scripts/nginx.conf. Resolves to { url, stop } or null when nginx
// is not installed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function startNginx(upstreamPort) {
  if (!NGINX) return null;
  const prefix = mkdtempSync(path.join(tmpdir(), 'tokenpaint-nginx-'));
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(prefix, d));
  const port = await freePort();
  const conf = readFileSync(path.join(here, 'nginx.conf'), 'utf8')
    .replaceAll('@PREFIX@', prefix)
    .replaceAll('@PORT@', String(port))
    .replaceAll('@UPSTREAM@', String(upstreamPort));
  const file = path.join(prefix, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn(NGINX, ['-p', prefix, '-c', file, '-e', path.join(prefix, 'error.log')], { stdio: 'ignore' });
  // Ready when it accepts connections.
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    try {
      await fetch(`${url}/unbuffered/www/index.html`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGQUIT');
      }),
  };
}
