import type { Profiler } from './index.js';

export interface OverlayOptions {
  /** The key that, with Alt+Shift, hides and shows the panel (default `T`). */
  key?: string;
  /** Start hidden. */
  hidden?: boolean;
}

export interface Overlay {
  /** The panel's (closed) shadow root, for tests and tools; null when no panel could be made. */
  readonly root: ShadowRoot | null;
  /** Shows `text` as the panel's status (why it cannot measure, for one). */
  note(text: string): void;
  toggle(): void;
  /** Removes the panel and its subscriptions. */
  close(): void;
}

/** A floating development panel for `profiler`: the current answer live, then its verdict and fix. */
export declare function overlay(profiler: Profiler, options?: OverlayOptions): Overlay;
