/**
 * Where text goes. stdout carries data only (lines, JSON) and honours backpressure; stderr
 * carries everything for humans, and only through this class: a live status line (progress)
 * is redrawn in place on a terminal and cleared before any other stderr line and before data
 * reaches a terminal stdout, so the two never share a line. Colours (chalk) and spinners (ora) are loaded lazily and only
 * when stderr is a TTY, and never under `CI`, `NO_COLOR`, `--no-color`, `--quiet` or `--json`
 * (`FORCE_COLOR` forces colours on or, as `0`, off).
 *
 * Text may come from a server (names, messages, records): on a terminal, its control
 * characters are shown escaped (format/terminal-text.ts), on stdout and stderr alike; piped,
 * it passes as it is. `line`, `jsonLine`, `jsonDoc` and the stderr methods do this by
 * themselves; a line painted here (colours) is built from `shown()` parts and goes out with
 * `paintedLine`.
 */
import type { ChalkInstance } from "chalk";
import { escapeJson, escapeLine } from "../format/terminal-text.js";
import { stdout } from "./stdout.js";

interface OutputOptions {
  quiet?: boolean;
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export function colorWanted(opts: OutputOptions): boolean {
  const env = opts.env ?? process.env;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false" && opts.color !== false;
  const tty = (opts.stderr ?? process.stderr).isTTY === true;
  return (
    tty &&
    opts.color !== false &&
    !opts.quiet &&
    !opts.json &&
    !env.CI &&
    env.NO_COLOR === undefined &&
    env.TERM !== "dumb"
  );
}

export function spinnerWanted(opts: OutputOptions): boolean {
  const env = opts.env ?? process.env;
  return (opts.stderr ?? process.stderr).isTTY === true && !opts.quiet && !opts.json && !env.CI;
}

type Paint = (s: string) => string;
const plain: Paint = (s) => s;

export class Output {
  readonly quiet: boolean;
  readonly json: boolean;
  readonly verboseOn: boolean;
  private readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  private chalk: ChalkInstance | undefined;
  private liveDrawn = false;

  constructor(private readonly opts: OutputOptions = {}) {
    this.quiet = opts.quiet === true;
    this.json = opts.json === true;
    this.verboseOn = opts.verbose === true;
    this.stderr = opts.stderr ?? process.stderr;
  }

  /** stdout, opened on first use (stdout.ts). */
  private get stdout(): NodeJS.WritableStream & { isTTY?: boolean } {
    return this.opts.stdout ?? stdout();
  }

  /** Loads chalk when colours are wanted; call once before printing. */
  async init(): Promise<this> {
    if (colorWanted(this.opts)) {
      const { Chalk } = await import("chalk");
      this.chalk = new Chalk({ level: 1 });
    }
    return this;
  }

  get green(): Paint {
    return this.chalk ? this.chalk.green.bold : plain;
  }
  get red(): Paint {
    return this.chalk ? this.chalk.red : plain;
  }
  get yellow(): Paint {
    return this.chalk ? this.chalk.yellow : plain;
  }
  get dim(): Paint {
    return this.chalk ? this.chalk.dim : plain;
  }
  get bold(): Paint {
    return this.chalk ? this.chalk.bold : plain;
  }

  /** Whether a person reads stderr: a terminal, or --verbose asked for more (and not --quiet). */
  get personWatching(): boolean {
    return !this.quiet && (this.stderr.isTTY === true || this.verboseOn);
  }

  /** Whether stdout is a terminal, so data may be drawn for eyes (charts). */
  get dataOnTerminal(): boolean {
    return this.stdout.isTTY === true;
  }

  /** The width of a terminal stdout (80 when unknown). */
  get dataColumns(): number {
    return (this.stdout as { columns?: number }).columns || 80;
  }

  /**
   * Colours for data drawn on a terminal stdout (charts): only when stdout is a terminal and
   * colours are not turned off (NO_COLOR, --no-color, FORCE_COLOR=0, CI, TERM=dumb).
   */
  async dataChalk(): Promise<ChalkInstance | undefined> {
    // --quiet and --json speak of stderr and of JSON; neither changes how a chart looks.
    if (!this.dataOnTerminal || !colorWanted({ ...this.opts, quiet: false, json: false, stderr: this.stdout }))
      return undefined;
    const { Chalk } = await import("chalk");
    return new Chalk({ level: 1 });
  }

  /** `text` as a terminal stdout shows it: control characters escaped (newline too); as it is otherwise. */
  shown(text: string): string {
    return this.dataOnTerminal ? escapeLine(text) : text;
  }

  /** One line of data on stdout; resolves once the stream can take more. */
  line(text: string): Promise<void> {
    return this.write(`${this.shown(text)}\n`);
  }

  /** A line whose colours svc added itself; any text from elsewhere in it went through `shown()`. */
  paintedLine(text: string): Promise<void> {
    return this.write(`${text}\n`);
  }

  /** One JSON document (compact, one line) on stdout. */
  jsonLine(value: unknown): Promise<void> {
    return this.jsonText(`${JSON.stringify(value)}\n`);
  }

  /** Indented JSON for a single document on stdout. */
  jsonDoc(value: unknown): Promise<void> {
    return this.jsonText(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** JSON text on stdout; on a terminal with DEL and C1 controls as `\u00hh` (the same JSON value). */
  jsonText(text: string): Promise<void> {
    return this.write(this.dataOnTerminal ? escapeJson(text) : text);
  }

  /** Text written as it is (svc's own: reports, scripts); text from a server goes through the methods above. */
  write(text: string): Promise<void> {
    this.beforeData();
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  /** `msg` as a terminal stderr shows it: control characters escaped (newline too); as it is otherwise. */
  shownErr(msg: string): string {
    return this.stderr.isTTY === true ? escapeLine(msg) : msg;
  }

  /** Status for humans (stderr); silent under --quiet. `dim` for a tip. */
  info(msg: string, style?: "dim"): void {
    if (!this.quiet) this.errLine(style === "dim" ? this.dim(this.shownErr(msg)) : this.shownErr(msg));
  }

  success(msg: string): void {
    if (!this.quiet) this.errLine(`${this.green("✓")} ${this.shownErr(msg)}`);
  }

  /** Warnings always print. */
  warn(msg: string): void {
    this.errLine(`${this.yellow("!")} ${this.shownErr(msg)}`);
  }

  /** A line that prints even under --quiet (what an interrupt left behind, for example). */
  notice(msg: string): void {
    this.errLine(this.shownErr(msg));
  }

  verbose(msg: string): void {
    if (this.verboseOn) this.errLine(this.dim(`· ${this.shownErr(msg)}`));
  }

  /** Whether a live status line can be shown: stderr is a terminal, not CI, not --quiet/--json. */
  get liveWanted(): boolean {
    return spinnerWanted(this.opts);
  }

  /** Draws `text` as the live status line, replacing the previous one (terminal only). */
  live(text: string): void {
    if (!this.liveWanted) return;
    const width = this.stderr.columns || 80;
    text = escapeLine(text);
    const fitted = text.length >= width ? `${text.slice(0, Math.max(0, width - 2))}…` : text;
    this.stderr.write(`\r\x1b[2K${fitted}`);
    this.liveDrawn = true;
  }

  /** Clears the live status line if one is drawn. */
  clearLive(): void {
    if (!this.liveDrawn) return;
    this.stderr.write("\r\x1b[2K");
    this.liveDrawn = false;
  }

  /** Call before data goes to stdout by another road (record output): a terminal stdout shares the screen. */
  beforeData(): void {
    if (this.stdout.isTTY === true) this.clearLive();
  }

  private errLine(text: string): void {
    this.clearLive();
    this.stderr.write(`${text}\n`);
  }

  /** Runs `fn` under an ora spinner when one is wanted, else with a plain status line. */
  async spin<T>(text: string, fn: (update: (t: string) => void) => Promise<T>): Promise<T> {
    if (!spinnerWanted(this.opts)) {
      return fn(() => {});
    }
    const { default: ora } = await import("ora");
    const spinner = ora({ text, stream: this.stderr as NodeJS.WriteStream }).start();
    try {
      const result = await fn((t) => {
        spinner.text = t;
      });
      spinner.stop();
      return result;
    } catch (e) {
      spinner.stop();
      throw e;
    }
  }
}
