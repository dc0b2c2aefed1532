// tokenpaint extension: the toolbar popup. It turns tokenpaint on or off for the current tab's
// site (asking for that site's permission only), lists the tab's reports, and exports them as
// one JSON file (the reports, and each page load's exported summary, which `mergeSummary()`
// and the lab read). `?tab=N` names the tab when the popup is opened as a page of its own.

const $ = (id) => document.getElementById(id);
const ms = (v) => (v === null || v === undefined ? '–' : `${Math.round(v)} ms`);

async function currentTab() {
  const asked = Number(new URLSearchParams(location.search).get('tab'));
  if (asked) return chrome.tabs.get(asked);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

const tab = await currentTab();
const origin = tab && tab.url && /^https?:/.test(tab.url) ? new URL(tab.url).origin : null;
const ask = (m) => chrome.runtime.sendMessage({ ...m, tabId: tab && tab.id, origin });
$('origin').textContent = origin || 'this page (not a web site)';
$('on').disabled = !origin;

/** The export: what the lab opens and `mergeSummary()` merges. */
export function exported(state, page) {
  return { tokenpaint: 'reports', version: 1, source: 'extension', page, exportedAt: new Date().toISOString(), reports: state.reports, summaries: Object.values(state.summaries || {}) };
}

let state = null;
async function draw() {
  state = await ask({ type: 'state' });
  if (!state) return;
  $('on').checked = state.on;
  const s = $('status');
  s.className = `status ${state.status || ''}`;
  s.textContent = state.status === 'blocked' ? `Cannot measure here: ${state.why}.` : state.on ? (state.status === 'on' ? 'Measuring this tab.' : 'On: reload the page to measure it.') : '';
  const body = $('reports').tBodies[0];
  body.replaceChildren();
  state.reports.forEach((r, i) => {
    const tr = document.createElement('tr');
    const v = r.diagnosis && r.diagnosis[0];
    for (const text of [String(i + 1), v ? v.verdict : r.status, ms(r.ttftPerceived && r.ttftPerceived.painted), ms(r.lag && r.lag.p50), r.matchedPct === null || r.matchedPct === undefined ? '–' : `${r.matchedPct}%`]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    if (v && v.fix) tr.title = v.fix;
    body.append(tr);
  });
  $('empty').hidden = state.reports.length > 0;
  $('export').disabled = state.reports.length === 0;
}

$('on').addEventListener('change', async (e) => {
  const on = e.target.checked;
  // Only this site's permission, asked when the user turns it on.
  if (on && !(await chrome.permissions.request({ origins: [`${origin}/*`] }))) {
    e.target.checked = false;
    return;
  }
  await ask({ type: 'site', on });
  await chrome.tabs.reload(tab.id);
  setTimeout(draw, 500);
});

$('export').addEventListener('click', () => {
  const blob = new Blob([JSON.stringify(exported(state, origin), null, 1)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `tokenpaint-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

$('clear').addEventListener('click', async () => {
  await ask({ type: 'clear' });
  draw();
});

chrome.storage.session.onChanged.addListener(() => draw());
await draw();
