import { ProblemError } from '../../core/contract/problems';
import { decodePageCursor, encodePageCursor, refusedCursorDetail } from '../../core/domain/page-cursor';
import { PAGE_CURSOR, PAGE_LIMIT } from '../../core/routes';
import { loadServiceKey } from '../common/service-secrets';
import { findPropertiesByPmsHotelId, listPropertiesOfPartner, listPropertiesPage } from '../data/properties';
import { BodyWithHeaders, partnerApiHandler } from './partner-api-handler';

/**
 * GET /properties: id and name of every property the partner sponsors, in id order. With
 * `limit`, one page and an RFC 8288 `Link: <…>; rel="next"` until the last page; the body has the
 * same fields either way. With `pms_hotel_id`, the partner's property of that id alone, or none.
 * The cursor key is read only when a page is asked for.
 */
export const handler = partnerApiHandler(
  'properties',
  async ({ event, partnerId, nowMs, query: { limit, cursor, pms_hotel_id } }) => {
    const head = { partner_id: partnerId, generated_at: new Date(nowMs).toISOString() };
    // One property at most: a page of its own whatever the limit, with no next page.
    if (pms_hotel_id !== undefined)
      return { ...head, properties: await findPropertiesByPmsHotelId(partnerId, pms_hotel_id) };
    if (limit === undefined) return { ...head, properties: await listPropertiesOfPartner(partnerId) };
    const key = await loadServiceKey('cursor');
    const position = cursor === undefined ? undefined : decodePageCursor(key, partnerId, cursor);
    if (cursor !== undefined && !position) {
      throw new ProblemError('invalid-request', refusedCursorDetail(PAGE_CURSOR.name));
    }
    const page = await listPropertiesPage(partnerId, { afterId: position?.afterId, limit });
    const last = page.properties.at(-1);
    const body = { ...head, properties: page.properties };
    if (!page.more || !last) return body;
    // A path-absolute reference (RFC 8288 §3.1 resolves it against the request URL): the path the
    // client called, stage prefix or custom domain included.
    const next = new URLSearchParams({
      [PAGE_LIMIT.name]: String(limit),
      [PAGE_CURSOR.name]: encodePageCursor(key, partnerId, last.id),
    });
    return new BodyWithHeaders(body, { Link: `<${event.requestContext.path}?${next}>; rel="next"` });
  },
);
