// The floor of an instrument with tokenpaint's commit and paint precision, as a script of its
// own (so that a CPU profile can tell its time from the page's), with nothing in its callbacks:
// - 'loop' (the overhead bench's): every frame bracketed as the paint clock does while it runs, a
//   rAF callback that posts a user-blocking task, which requests the next frame;
// - 'bracket': one such bracket per commit, asked for by the commit observer (what the paint
//   clock does at least: the frame after each commit, its start and its after-paint mark);
// - 'frame': the frame's start alone per commit (a rAF callback, no after-paint task), a lower
//   bound for any instrument that marks the frame a commit is painted in.
// With `withObserver`, a MutationObserver on the answer's container takes the time and reads the
// text nodes added or changed ('bracket' and 'frame' need it). Returns a function that stops it all.
export function startFloor(withObserver, mode = 'loop') {
  let on = true;
  let waiting = false;
  const seen = (window.floorSeen = { at: 0, chars: 0, frames: 0 });
  const after = () => {
    waiting = false;
    seen.frames++;
    if (on && mode === 'loop') requestAnimationFrame(frame);
  };
  const frame = mode === 'frame' ? after : () => scheduler.postTask(after, { priority: 'user-blocking' });
  if (mode === 'loop') requestAnimationFrame(frame);
  let mo = null;
  if (withObserver) {
    mo = new MutationObserver((records) => {
      seen.at = performance.now();
      for (const r of records) {
        if (r.type === 'characterData') seen.chars += r.target.data.length; // React's way: the text grown in place
        else for (const n of r.addedNodes) if (n.nodeType === 3) seen.chars += n.data.length;
      }
      if (mode !== 'loop' && !waiting) {
        waiting = true;
        requestAnimationFrame(frame);
      }
    });
    mo.observe(document.getElementById('chat'), { childList: true, subtree: true, characterData: true });
  }
  return () => {
    on = false;
    if (mo) mo.disconnect();
  };
}
