// The floor of an instrument with tokenpaint's commit and paint precision, as a script of its
// own (so that a CPU profile can tell its time from the page's): a frame loop bracketing every
// frame as the paint clock does (a rAF callback that posts a user-blocking task, which requests
// the next frame), with nothing in it, and optionally a MutationObserver on the answer's
// container whose callback takes the time and reads the text nodes added.
export function startFloor(withObserver) {
  const after = () => requestAnimationFrame(frame);
  const frame = () => scheduler.postTask(after, { priority: 'user-blocking' });
  requestAnimationFrame(frame);
  if (!withObserver) return;
  const seen = (window.floorSeen = { at: 0, chars: 0 });
  new MutationObserver((records) => {
    seen.at = performance.now();
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 3) seen.chars += n.data.length;
  }).observe(document.getElementById('chat'), { childList: true, subtree: true, characterData: true });
}
