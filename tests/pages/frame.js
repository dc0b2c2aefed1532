// A chat widget in its own (cross-origin) frame: the host page posts it each delta to show.
addEventListener('message', (e) => document.getElementById('answer').append(String(e.data)));
