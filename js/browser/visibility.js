// Page visibility: nothing paints while the page is hidden, so the samples of those intervals are
// not lag. Watched while the profiler is connected; each interval the page was hidden is handed
// on (`onShown(since, until)`).

export class Visibility {
  #onShown;
  #listening;
  #onChange;

  /** @param {(since: number, until: number) => void} onShown */
  constructor(onShown) {
    this.#onShown = onShown;
    this.hiddenSince = null;
    this.#listening = false;
    this.#onChange = () => this.#change();
  }

  listen() {
    if (this.#listening || typeof document === 'undefined' || !document.addEventListener) return;
    if (document.visibilityState === 'hidden' && this.hiddenSince === null) this.hiddenSince = performance.now();
    document.addEventListener('visibilitychange', this.#onChange);
    this.#listening = true;
  }

  stop() {
    if (!this.#listening || typeof document === 'undefined' || !document.removeEventListener) return;
    document.removeEventListener('visibilitychange', this.#onChange);
    this.#listening = false;
  }

  #change() {
    try {
      const t = performance.now();
      if (document.visibilityState === 'hidden') {
        if (this.hiddenSince === null) this.hiddenSince = t;
      } else if (this.hiddenSince !== null) {
        const since = this.hiddenSince;
        this.hiddenSince = null;
        this.#onShown(since, t);
      }
    } catch {
      /* never into the page */
    }
  }
}
