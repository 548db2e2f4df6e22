// The few globals every target runtime has (mini-games, browsers, Node). Declared here rather than
// taking the DOM library, so the client cannot use a browser-only global by accident.
declare const console: { log(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
declare function setTimeout(callback: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
