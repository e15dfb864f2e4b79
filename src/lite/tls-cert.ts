/**
 * TLS for svc lite: `--tls-cert FILE --tls-key FILE`, or `--tls-self`, a self-signed
 * certificate (ECDSA P-256, valid a year, for localhost, 127.0.0.1, ::1 and the listen host)
 * whose SHA-256 fingerprint is printed. With a data dir it is kept there (`tls-self-cert.pem`,
 * and `tls-self-key.pem` as a secret: data-dir.ts) and used again at every start while it is
 * valid for 30 more days and for the listen host, so that clients can trust it
 * (NODE_EXTRA_CA_CERTS) or pin its fingerprint across restarts; without one (--in-memory,
 * PostgreSQL) a new one is made at every start and kept nowhere. A running lite renews it the
 * same way when it comes within 30 days of its end (keepRenewed).
 *
 * The certificate is DER written here (X.509 v3, RFC 5280 §4.1) and signed with node:crypto:
 *
 *   Certificate  = SEQUENCE { tbs, AlgorithmIdentifier ecdsa-with-SHA256, BIT STRING sig }
 *   tbs          = SEQUENCE { [0] v3, serial, alg, issuer, validity, subject, spki, [3] exts }
 *   exts         = subjectAltName (dNSName [2], iPAddress [7]), basicConstraints cA=false
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { clientError } from "../errors.js";
import { SECRET, writeWhole } from "../whole-file.js";
import { readChosenSecret, readSecret } from "./data-dir.js";

/**
 * How long a self-signed certificate is valid, how long before its end a new one is made, and
 * how often a running lite looks (a year, 30 days and an hour by default: option-table.ts;
 * tests shorten them to see a certificate renewed while lite runs).
 */
export interface SelfTiming {
  validMs: number;
  renewMs: number;
  checkMs: number;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, colon-separated hex (as browsers and openssl print it). */
  fingerprint: string;
  selfSigned: boolean;
  /** --tls-self: the file it is kept in (undefined: kept nowhere, there is no data dir). */
  certFile?: string;
  /** Made at this start (not given, not kept from an earlier one). */
  made: boolean;
}

/** What the log says of a server's certificate. */
export type TlsInfo = Omit<TlsMaterial, "cert" | "key">;

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.of(tag), len(body.length), body]);
}

const seq = (...parts: Buffer[]): Buffer => tlv(0x30, ...parts);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const out = [a! * 40 + b!];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, "").slice(2, 14);
  return tlv(0x17, Buffer.from(`${s}Z`, "ascii"));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  const [head = "", tail = ""] = ip.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return Buffer.concat(
    groups.map((g) => {
      const b = Buffer.alloc(2);
      b.writeUInt16BE(parseInt(g, 16));
      return b;
    }),
  );
}

function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/** A fresh self-signed certificate for `host` (and localhost, 127.0.0.1, ::1), valid for `validMs`. */
export function selfSigned(host: string, validMs: number): TlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ecdsaSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const name = seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from("svc lite", "utf8")))));
  const now = Date.now();
  const san = sanHosts(host).map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, "ascii"))));
  const extensions = tlv(
    0xa3,
    seq(
      seq(oid("2.5.29.17"), tlv(0x04, seq(...san))),
      seq(oid("2.5.29.19"), tlv(0x01, Buffer.of(0xff)), tlv(0x04, seq())),
    ),
  );
  // A positive DER INTEGER with no leading zero byte (OpenSSL refuses one: "illegal padding"):
  // the first byte is 0x40-0x7f, which leaves 126 random bits.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.of(2))),
    tlv(0x02, serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + validMs))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    extensions,
  );
  const signature = sign("sha256", tbs, privateKey);
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.of(0), signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { cert, key, fingerprint: fingerprintOf(cert), selfSigned: true, made: true };
}

/**
 * --tls-self with a data dir: the certificate kept there while it is good (see the top), else a
 * new one, written there first (the key as a secret, 0600). Call while holding the data dir's lock.
 */
export function selfSignedIn(dataDir: string, host: string, timing: SelfTiming): TlsMaterial {
  const certFile = join(dataDir, "tls-self-cert.pem");
  const keyFile = join(dataDir, "tls-self-key.pem");
  const key = readSecret(keyFile, "the TLS key file");
  const kept = key === undefined ? undefined : keptCertificate(certFile, key, host, timing.renewMs);
  if (kept) return { ...kept, certFile };
  const made = selfSigned(host, timing.validMs);
  writeWhole(keyFile, made.key, SECRET);
  writeWhole(certFile, made.cert, SECRET);
  return { ...made, certFile };
}

/**
 * --tls-self while lite runs: looked at every hour; once less than 30 days are left, `make`
 * gives a new certificate (kept in the data dir, if any) and `use` serves it to every new
 * connection (open ones keep theirs). A failure is logged and the old one served meanwhile.
 */
export function keepRenewed(
  current: TlsMaterial,
  make: () => TlsMaterial,
  use: (m: TlsMaterial) => void,
  log: (m: string) => void,
  timing: SelfTiming,
): { stop(): void } {
  let serving = current;
  const timer = setInterval(() => {
    try {
      if (Date.parse(new X509Certificate(serving.cert).validTo) - Date.now() >= timing.renewMs) return;
      serving = make();
      use(serving);
      log(
        `TLS: the self-signed certificate was renewed (valid to ${new X509Certificate(serving.cert).validTo})${serving.certFile ? ` and kept in ${serving.certFile}` : ""}; new SHA-256 fingerprint ${serving.fingerprint}`,
      );
    } catch (e) {
      log(`TLS: could not renew the self-signed certificate (${(e as Error).message}); still serving the old one`);
    }
  }, timing.checkMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The kept certificate, if it is the key's, valid now and for `renewMs` more, and for `host`. */
function keptCertificate(certFile: string, key: string, host: string, renewMs: number): TlsMaterial | undefined {
  try {
    const cert = readFileSync(certFile, "utf8");
    const x = new X509Certificate(cert);
    const now = Date.now();
    if (!x.checkPrivateKey(createPrivateKey(key))) return undefined;
    if (Date.parse(x.validFrom) > now || Date.parse(x.validTo) - now < renewMs) return undefined;
    if (sanHosts(host).some((h) => (isIP(h) ? x.checkIP(h) : x.checkHost(h)) === undefined)) return undefined;
    return { cert, key, fingerprint: x.fingerprint256, selfSigned: true, made: false };
  } catch {
    return undefined; // missing, unreadable or not a certificate: a new one replaces it
  }
}

/** The names a self-signed certificate is made for: the listen host (unless a wildcard address) and loopback. */
function sanHosts(host: string): string[] {
  return [...new Set(["localhost", "127.0.0.1", "::1", host])].filter((h) => h !== "" && h !== "0.0.0.0" && h !== "::");
}

export function describeTls(t: TlsInfo): string {
  if (!t.selfSigned) return "the certificate given";
  if (t.certFile === undefined)
    return "a self-signed certificate made now and kept nowhere (no data dir: a new one, with a new fingerprint, at every start; clients need --insecure)";
  return `${t.made ? "a self-signed certificate made now and" : "the self-signed certificate"} kept in ${t.certFile} (clients trust it with NODE_EXTRA_CA_CERTS=${t.certFile}, or use --insecure)`;
}

/** A certificate and key from PEM files; a clear usage error when they cannot be read. */
export function fromFiles(certFile: string, keyFile: string): TlsMaterial {
  const read = (file: string, what: string): string => {
    try {
      return readFileSync(file, "utf8");
    } catch (e) {
      throw clientError(
        "usage",
        `svc lite: cannot read the TLS ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  };
  const cert = read(certFile, "certificate");
  const key = readChosenSecret(keyFile, "the TLS key");
  let fingerprint: string;
  try {
    fingerprint = fingerprintOf(cert);
  } catch (e) {
    throw clientError("usage", `svc lite: ${certFile} is not a PEM certificate: ${(e as Error).message}`);
  }
  return { cert, key, fingerprint, selfSigned: false, made: false };
}
