/**
 * TLS for svc lite (issue 15): `--tls-cert FILE --tls-key FILE`, or `--tls-self`, a
 * self-signed certificate made at start (ECDSA P-256, valid 30 days, for localhost,
 * 127.0.0.1, ::1 and the listen host) whose SHA-256 fingerprint is printed.
 *
 * The certificate is DER written here (X.509 v3, RFC 5280 §4.1) and signed with node:crypto:
 *
 *   Certificate  = SEQUENCE { tbs, AlgorithmIdentifier ecdsa-with-SHA256, BIT STRING sig }
 *   tbs          = SEQUENCE { [0] v3, serial, alg, issuer, validity, subject, spki, [3] exts }
 *   exts         = subjectAltName (dNSName [2], iPAddress [7]), basicConstraints cA=false
 */
import { generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { clientError } from "../errors.js";

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, colon-separated hex (as browsers and openssl print it). */
  fingerprint: string;
  selfSigned: boolean;
}

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
  return Buffer.concat(groups.map((g) => { const b = Buffer.alloc(2); b.writeUInt16BE(parseInt(g, 16)); return b; }));
}

function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/** A fresh self-signed certificate for `host` (and localhost, 127.0.0.1, ::1). */
export function selfSigned(host: string): TlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ecdsaSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const name = seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from("svc lite", "utf8")))));
  const now = Date.now();
  const hosts = new Set(["localhost", "127.0.0.1", "::1", host]);
  const san = [...hosts].filter((h) => h !== "" && h !== "0.0.0.0" && h !== "::").map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, "ascii"))));
  const extensions = tlv(0xa3, seq(
    seq(oid("2.5.29.17"), tlv(0x04, seq(...san))),
    seq(oid("2.5.29.19"), tlv(0x01, Buffer.of(0xff)), tlv(0x04, seq())),
  ));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.of(2))),
    tlv(0x02, serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 30 * 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    extensions,
  );
  const signature = sign("sha256", tbs, privateKey);
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.of(0), signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { cert, key, fingerprint: fingerprintOf(cert), selfSigned: true };
}

/** A certificate and key from PEM files; a clear usage error when they cannot be read. */
export function fromFiles(certFile: string, keyFile: string): TlsMaterial {
  const read = (file: string, what: string): string => {
    try {
      return readFileSync(file, "utf8");
    } catch (e) {
      throw clientError("usage", `svc lite: cannot read the TLS ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const cert = read(certFile, "certificate");
  const key = read(keyFile, "key");
  let fingerprint: string;
  try {
    fingerprint = fingerprintOf(cert);
  } catch (e) {
    throw clientError("usage", `svc lite: ${certFile} is not a PEM certificate: ${(e as Error).message}`);
  }
  return { cert, key, fingerprint, selfSigned: false };
}
