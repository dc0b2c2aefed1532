// The lab's syntax highlighter (bundled by the demo server at /vendor/highlighter.js, and by the
// renderer tests), loaded as a script of its own, as pages load one from a CDN or a chunk:
// highlight.js (the real package) re-highlights every code block of an element after each
// change, in a task of its own. It is the heavy script of the page's late frames, and the
// browser's long-animation-frame entries name this file.
import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';

hljs.registerLanguage('javascript', javascript);

/** Highlights the code blocks of `el` now. */
window.highlightNow = (el) => {
  for (const code of el.querySelectorAll('pre code')) {
    code.removeAttribute('data-highlighted');
    code.className = 'language-javascript';
    hljs.highlightElement(code);
  }
};

/** Highlights the code blocks of `el` in a task after this one. */
window.highlightSoon = (el) =>
  setTimeout(function highlightCodeBlocks() {
    window.highlightNow(el);
  }, 0);
