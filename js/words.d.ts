// Generated from src/words.json by scripts/words.mjs: do not edit.

/** A stream format tokenpaint reads, or `auto` to detect it. */
export type Format =
  | 'auto'
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'ollama'
  | 'tgi'
  | 'llamacpp'
  | 'ai-sdk-ui'
  | 'ai-sdk-data'
  | 'sse-text'
  | 'text'
  | 'json';
export declare const END_COMPLETE: 0;
export declare const END_ABORTED: 1;
export declare const END_FAILED: 2;
export declare const UNSEEN_CLOSED_SHADOW_ROOT: 0;
export declare const UNSEEN_CROSS_ORIGIN_IFRAME: 1;
export declare const UNSEEN_NOT_OBSERVED: 2;
export declare const UNSEEN_NOT_FOUND: 3;
