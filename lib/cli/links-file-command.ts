import { access, open, rm } from 'node:fs/promises';
import { quoted } from '../../core/domain/text';
import type { OperatorTarget } from '../operations/target';
import type { CliIo } from './command';
import { UsageError } from './command';

/**
 * `links create --partner SLUG --file hosts.csv [--out links.csv|links.json]`: checks every row
 * (exit 2 with each bad row's line when one is malformed), then mints one link per row (exit 1,
 * nothing minted, when the partner or its agreement refuses a row). The links go to `--out` (a
 * new file, readable by its owner only: each link onboards a host) or to stdout.
 */
export async function linksFileCommand(
  options: Record<string, unknown>,
  ttlSeconds: number,
  target: OperatorTarget,
  io: CliIo,
) {
  const inputs = await import('../operations/inputs');
  const batch = await import('../operations/link-batch');
  const single = ['email', 'name', 'pmsHotelId'].filter((name) => options[name] !== undefined);
  if (single.length > 0)
    throw new UsageError(
      '--file takes the hosts from the file: leave out --email, --name and --pms-hotel-id.',
    );
  const out = typeof options.out === 'string' ? inputs.operatorFile(options.out) : undefined;
  if (
    out !== undefined &&
    (await access(out).then(
      () => true,
      () => false,
    ))
  )
    throw new UsageError(
      `--out "${quoted(out, 200)}" exists: name a new file (links are never overwritten).`,
    );
  const slug = inputs.partnerSlug(String(options.partner ?? ''), '--partner');
  const nowMs = Date.now();
  let rows: Awaited<ReturnType<typeof batch.parseHostFile>>;
  try {
    rows = batch.parseHostFile(await batch.readHostFile(inputs.operatorFile(String(options.file))), {
      ...(typeof options.products === 'string' ? { defaultProducts: options.products } : {}),
      ttlSeconds,
      nowMs,
    });
  } catch (error) {
    if (error instanceof batch.HostFileError) throw new UsageError(error.message);
    throw error;
  }
  // Created before anything is minted, so links are never minted for a file that cannot be written.
  const file = out === undefined ? undefined : await open(out, 'wx', 0o600);
  try {
    const links = await batch.createActivationLinks(target, { slug, rows, ttlSeconds }, nowMs);
    const result = { partner: slug, links };
    const expiry = `expire ${links[0]?.expires_at ?? ''}; each works once`;
    if (file === undefined) {
      io.err(`${links.length} link(s) for ${slug}; they ${expiry}.`);
      return { json: result, text: batch.linksCsv(links).trimEnd().split('\n') };
    }
    await file.writeFile(
      out?.endsWith('.json') ? `${JSON.stringify(result, null, 2)}\n` : batch.linksCsv(links),
    );
    return {
      json: { ...result, file: out },
      text: [`Wrote ${links.length} link(s) for ${slug} to ${out}; they ${expiry}.`],
    };
  } catch (error) {
    // Nothing was minted (the refusals come before any link), or the file could not be written.
    if (out !== undefined && file !== undefined) {
      await file.close();
      await rm(out, { force: true });
    }
    throw error;
  } finally {
    await file?.close().catch(() => undefined);
  }
}
