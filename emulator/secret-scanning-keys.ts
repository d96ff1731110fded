import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PublicKeysDocument } from '../core/contract/secret-scanning';
import { publicKeysDocumentSchema } from '../core/contract/secret-scanning';
import { ensurePrivateFolder } from './runtime';

/*
 * The keys the local server trusts for secret scanning reports (docs/design/local-runtime.md):
 * the file `SECRET_SCANNING_KEYS_FILE` names, in GitHub's format, or else a key pair of its own,
 * made once and kept under `<local folder>/secret-scanning/`, whose private key `keys report-leak`
 * signs with, as GitHub signs with its own.
 */

export interface LocalReporterKeys {
  /** The document the local endpoint publishes (GitHub's format). */
  readonly keysFile: string;
  /** The private key of the pair the server made; none when the keys come from SECRET_SCANNING_KEYS_FILE. */
  readonly privateKeyFile?: string;
  readonly keyIdentifier?: string;
}

/** An identifier as GitHub's look: the SHA-256, in hex, of the public key's DER. */
export function keyIdentifierOf(publicKeyPem: string): string {
  const der = Buffer.from(publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return createHash('sha256').update(der).digest('hex');
}

/** A new P-256 key pair and the GitHub-format document that publishes its public half. */
function reporterKeyPair(): {
  privateKeyPem: string;
  identifier: string;
  document: PublicKeysDocument;
} {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const identifier = keyIdentifierOf(publicKeyPem);
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    identifier,
    document: { public_keys: [{ key_identifier: identifier, key: publicKeyPem, is_current: true }] },
  };
}

/** Checks a keys file names at least one key, in GitHub's format; a bad file fails the start, naming it. */
async function checkedKeysFile(file: string): Promise<string> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      `SECRET_SCANNING_KEYS_FILE: ${path} cannot be read (${(error as NodeJS.ErrnoException).code}).`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`SECRET_SCANNING_KEYS_FILE: ${path} is not JSON.`);
  }
  const document = publicKeysDocumentSchema().safeParse(parsed);
  if (!document.success || document.data.public_keys.length === 0)
    throw new Error(
      `SECRET_SCANNING_KEYS_FILE: ${path} is not in GitHub's format: {"public_keys":[{"key_identifier","key","is_current"}]} with at least one PEM key.`,
    );
  return path;
}

/** The keys of the local server: the named file, or the pair it made (and keeps) in `directory`. */
export async function localReporterKeys(
  directory: string,
  keysFile: string | undefined,
): Promise<LocalReporterKeys> {
  if (keysFile) return { keysFile: await checkedKeysFile(keysFile) };
  const folder = join(directory, 'secret-scanning');
  await ensurePrivateFolder(folder);
  const privateKeyFile = join(folder, 'private-key.pem');
  const publicKeysFile = join(folder, 'public-keys.json');
  try {
    const document = publicKeysDocumentSchema().parse(JSON.parse(await readFile(publicKeysFile, 'utf8')));
    const identifier = document.public_keys[0]?.key_identifier;
    await readFile(privateKeyFile, 'utf8');
    if (identifier) return { keysFile: publicKeysFile, privateKeyFile, keyIdentifier: identifier };
  } catch {
    // None yet, or unreadable: a new pair.
  }
  const pair = reporterKeyPair();
  await writeFile(privateKeyFile, pair.privateKeyPem, { mode: 0o600 });
  await writeFile(publicKeysFile, `${JSON.stringify(pair.document, null, 2)}\n`, { mode: 0o600 });
  return { keysFile: publicKeysFile, privateKeyFile, keyIdentifier: pair.identifier };
}
