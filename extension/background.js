// tokenpaint extension: the service worker. It keeps which sites the user turned tokenpaint on
// for (nothing runs anywhere else), registers the two content scripts for them (page.js in the
// page's world, bridge.js in the extension's), keeps each tab's reports for the popup, and tells
// a page whether its Content-Security-Policy lets WebAssembly run. Nothing leaves the browser:
// no request is made, and reports stay in the extension's session storage until the tab closes.

import { forbidsWasm } from './csp.js';

const MAX_REPORTS = 200;

/** The sites tokenpaint is on for (origins), from local storage. */
async function sites() {
  const { sites } = await chrome.storage.local.get('sites');
  return Array.isArray(sites) ? sites : [];
}

const patterns = (origin) => [`${origin}/*`];

/** Registers the content scripts for exactly the sites it is on for. */
async function sync() {
  const on = await sites();
  const registered = await chrome.scripting.getRegisteredContentScripts();
  if (registered.length) await chrome.scripting.unregisterContentScripts({ ids: registered.map((r) => r.id) });
  if (!on.length) return;
  const matches = on.flatMap(patterns);
  await chrome.scripting.registerContentScripts([
    // The bridge first: it must listen before the page script says hello.
    { id: 'tokenpaint-bridge', matches, js: ['bridge.js'], runAt: 'document_start', world: 'ISOLATED', persistAcrossSessions: true },
    { id: 'tokenpaint-page', matches, js: ['page.js'], runAt: 'document_start', world: 'MAIN', persistAcrossSessions: true },
  ]);
}

async function setSite(origin, on) {
  const all = new Set(await sites());
  if (on) all.add(origin);
  else all.delete(origin);
  await chrome.storage.local.set({ sites: [...all] });
  await sync();
}

// --- what each tab measured -------------------------------------------------------------------

const key = (tabId) => `tab:${tabId}`;

async function tabState(tabId) {
  const k = key(tabId);
  const got = await chrome.storage.session.get(k);
  return got[k] || { reports: [], summaries: {}, status: null, why: null };
}

// One write at a time per tab: reports of one answer come close together.
const queues = new Map();
function update(tabId, fn) {
  const next = (queues.get(tabId) || Promise.resolve()).then(async () => {
    const s = await tabState(tabId);
    fn(s);
    await chrome.storage.session.set({ [key(tabId)]: s });
    const n = s.reports.length;
    chrome.action.setBadgeText({ tabId, text: s.status === 'blocked' ? '!' : n ? String(n) : '' }).catch(() => {});
  });
  queues.set(tabId, next.catch(() => {}));
  return next;
}

// --- Content-Security-Policy: may WebAssembly run? ---------------------------------------------

// Per tab, what the last main-frame response's policy allows (headers are seen before the page's
// document starts, so the answer is there when its script asks).
const csp = new Map();

chrome.webRequest.onHeadersReceived.addListener(
  (d) => {
    if (d.frameId !== 0) return;
    let why = null;
    for (const h of d.responseHeaders || []) {
      if (h.name.toLowerCase() === 'content-security-policy' && h.value) why = why || forbidsWasm(h.value);
    }
    csp.set(d.tabId, why);
  },
  { urls: ['http://*/*', 'https://*/*'], types: ['main_frame'] },
  ['responseHeaders'],
);

// --- messages ----------------------------------------------------------------------------------

chrome.runtime.onMessage.addListener((m, sender, reply) => {
  const tabId = m.tabId ?? (sender.tab && sender.tab.id);
  (async () => {
    switch (m.type) {
      case 'csp?': {
        const why = csp.get(tabId) || null;
        if (why) await update(tabId, (s) => ((s.status = 'blocked'), (s.why = why)));
        return why ? { wasm: false, why } : { wasm: true };
      }
      case 'status':
        await update(tabId, (s) => ((s.status = m.status), (s.why = m.why || null)));
        return true;
      case 'report':
        await update(tabId, (s) => {
          s.reports.push(m.report);
          if (s.reports.length > MAX_REPORTS) s.reports.shift();
          // One summary per page load of the tab: each load's profiler exports its own.
          if (typeof m.summary === 'string' && sender.documentId) s.summaries[sender.documentId] = m.summary;
        });
        return true;
      case 'note':
        await update(tabId, (s) => (s.notes = [...new Set([...(s.notes || []), String(m.note)])]));
        return true;
      case 'state':
        return { ...(await tabState(tabId)), on: (await sites()).includes(m.origin) };
      case 'site':
        await setSite(m.origin, m.on);
        return true;
      case 'clear':
        await chrome.storage.session.remove(key(tabId));
        chrome.action.setBadgeText({ tabId, text: '' }).catch(() => {});
        return true;
      default:
        return null;
    }
  })().then(reply, () => reply(null));
  return true;
});

chrome.tabs.onRemoved.addListener((tabId) => {
  csp.delete(tabId);
  chrome.storage.session.remove(key(tabId));
});

chrome.runtime.onInstalled.addListener(() => sync());
chrome.runtime.onStartup.addListener(() => sync());
