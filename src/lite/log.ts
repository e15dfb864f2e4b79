/**
 * lite's log: lines on stderr, each prefixed `svc lite: ` (the server's and its command's;
 * stdout is data). The operator reads them on a terminal, and much of what they say comes from
 * tenants: basin and stream names, token ids, request paths, error messages that name them.
 * So, one rule for every line:
 *   - a name is shown by `quoted` (or `streamOf`): in double quotes, JSON-escaped, so a name
 *     holding a line break or a quote cannot end its line or forge another;
 *   - and `log` escapes, in the whole line, every character a terminal would obey or that
 *     would hide what follows: C0 controls but newline and tab, DEL, C1, the Unicode line
 *     separators and the bidirectional controls, as `\uXXXX` (a stack trace keeps its lines).
 */

const TERMINAL_UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAME_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** A name as every log line shows it: `"…"`, with quotes, backslashes and controls escaped. */
export function quoted(name: string): string {
  return JSON.stringify(name).replace(NAME_UNSAFE, unicodeEscape);
}

/** A stream as log lines show it: `"basin"/"stream"`. */
export function streamOf(basin: string, stream: string): string {
  return `${quoted(basin)}/${quoted(stream)}`;
}

/** One log line on stderr (see the rule above). */
export function log(message: string): void {
  process.stderr.write(`svc lite: ${message.replace(TERMINAL_UNSAFE, unicodeEscape)}\n`);
}

interface RepeatLimitedLog {
  (message: string): void;
  /** Writes the counts still held back (at shutdown). */
  flush(): void;
}

interface Window {
  timer: NodeJS.Timeout;
  /** Lines like the first held back in this window, and the last of them. */
  count: number;
  last: string;
}

/**
 * A log for lines that can come at the rate of requests: a disk that fills and frees refuses
 * thousands of appends a second, each with the same error. A line is written at once unless
 * one like it was written less than `windowMs` ago; those are held back and counted, and at
 * the end of the window the last of them is written with the count, so each kind of line
 * appears at most once per window while it repeats. Lines are alike when they differ only in
 * their digits: sizes, offsets and stream numbers vary between otherwise identical errors.
 */
export function repeatLimited(write: (message: string) => void = log, windowMs = 1000): RepeatLimitedLog {
  const windows = new Map<string, Window>();
  const open = (key: string): void => {
    const w: Window = { timer: setTimeout(() => close(key, w), windowMs).unref(), count: 0, last: "" };
    windows.set(key, w);
  };
  const summary = (w: Window): string =>
    w.count === 1 ? w.last : `${w.last} (${w.count} times like this in the last ${windowMs / 1000} s)`;
  const close = (key: string, w: Window): void => {
    windows.delete(key);
    if (w.count === 0) return;
    write(summary(w));
    open(key); // still repeating: the next window starts now
  };
  const limited = (message: string): void => {
    const key = message.replace(/\d+/g, "#");
    const w = windows.get(key);
    if (w === undefined) {
      write(message);
      open(key);
      return;
    }
    w.count++;
    w.last = message;
  };
  limited.flush = (): void => {
    for (const w of windows.values()) {
      clearTimeout(w.timer);
      if (w.count > 0) write(summary(w));
    }
    windows.clear();
  };
  return limited;
}
