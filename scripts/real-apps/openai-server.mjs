// A local OpenAI-compatible server for the real chat apps (scripts/real-apps.sh): `/v1/models`
// lists one model, and `/v1/chat/completions` streams the simulator's answer (scripts/sim.mjs)
// with one token every TOKEN_MS ms (20 by default), TOKENS tokens (40), as any OpenAI-compatible
// server does. Open WebUI asks it through its own backend; the page never sees it.
//
//   PORT=8099 node scripts/real-apps/openai-server.mjs
import http from 'node:http';
import { handleChat } from '../sim.mjs';

const knobs = `tokens=${process.env.TOKENS || 40}&token_ms=${process.env.TOKEN_MS || 20}&ttft_ms=${process.env.TTFT_MS || 100}`;

export function startOpenAiServer(port = 0) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'tokenpaint-sim', object: 'model', created: 1700000000, owned_by: 'tokenpaint' }] }));
    }
    if (url.pathname.endsWith('/chat/completions') && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        let parsed = null;
        try {
          parsed = JSON.parse(body);
        } catch {
          parsed = null;
        }
        handleChat(req, res, new URL(`http://127.0.0.1/v1/chat/completions?${knobs}`), parsed).catch(() => res.destroy());
      });
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await startOpenAiServer(Number(process.env.PORT) || 8099);
  console.log(`OpenAI-compatible server on http://127.0.0.1:${s.address().port}/v1`);
}
